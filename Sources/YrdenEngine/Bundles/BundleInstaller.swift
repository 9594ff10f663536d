import AsyncHTTPClient
import Crypto
import FoundationEssentials
import YrdenConfig
import YrdenProtocol
import YrdenTransport

#if canImport(Glibc)
import Glibc
#endif

/// Installs a registry entry's MCPB bundle into `<data directory>/bundles/<sha256>/`: downloaded (https, or
/// http to loopback; at most 5 redirects, 64 MiB and 40 s, so that with the 15 s unzip it ends within the
/// CLI's 60 s request), checked against `fileSha256` (a mismatch keeps nothing), its zip directory checked
/// (``BundleZipCheck``), unpacked by Debian's `unzip` with a deadline into a folder of its own that is renamed
/// into place only once the unpacked tree is checked again (sizes and no links), and its `manifest.json` read.
/// Content-addressed: a bundle already there is reused.
package struct BundleInstaller: Sendable {
    package static let maxDownloadBytes = 64 << 20
    static let downloadTimeout: Duration = .seconds(40)
    static let unzipTimeout: Duration = .seconds(15)
    static let maxManifestBytes = 1 << 20

    let client: HTTPClient
    let dataDirectory: String

    package init(client: HTTPClient, dataDirectory: String) {
        self.client = client
        self.dataDirectory = dataDirectory
    }

    /// The entry for `bundle` unpacked, with notes, or the problem (naming `bundle.path`'s package) that stops it.
    package func install(
        _ bundle: RegistryBundle
    ) async throws(RegistryEntryError) -> (
        entry: JSONObject, notes: [String]
    ) {
        let packagePath = String(bundle.path.dropLast(".fileSha256".count))
        func refused(_ field: String, _ message: String, _ fix: String = "") -> RegistryEntryError {
            RegistryEntryError([ConfigProblem(path: field, message: message, fix: fix)])
        }
        let root = dataDirectory + "/bundles"
        let folder = root + "/" + bundle.sha256
        let files = FileManager.default
        if !files.fileExists(atPath: folder + "/manifest.json") {
            let bytes: [UInt8]
            do {
                bytes = try await BoundedDownload.get(
                    bundle.url,
                    client: client,
                    maxBytes: Self.maxDownloadBytes,
                    timeout: Self.downloadTimeout
                )
            } catch {
                throw refused(packagePath + ".identifier", "the bundle cannot be downloaded: \(error.description)")
            }
            let digest = SHA256.hash(data: bytes).map { String($0, radix: 16).leftPadded }.joined()
            guard digest == bundle.sha256 else {
                throw refused(
                    bundle.path,
                    "the downloaded bundle's SHA-256 is \(digest), not the fileSha256 \(bundle.sha256); nothing was kept",
                    "the file at the identifier is not the one published: check the URL and the digest"
                )
            }
            do {
                _ = try BundleZipCheck.entries(of: bytes)
            } catch {
                throw refused(packagePath + ".identifier", "the bundle is refused: \(error.description)")
            }
            do {
                try await unpack(bytes, into: folder, root: root)
            } catch {
                throw refused(packagePath + ".identifier", "the bundle cannot be unpacked: \(error.description)")
            }
        }
        guard let data = files.contents(atPath: folder + "/manifest.json"), data.count <= Self.maxManifestBytes,
            let manifest = try? JSONValue.parse(Array(data))
        else {
            throw refused(packagePath + ".identifier", "the bundle has no readable manifest.json (up to 1 MiB of JSON)")
        }
        return try MCPBManifest.entry(manifest: manifest, folder: folder, path: packagePath)
    }

    /// Unzips into a fresh folder beside the final one, checks what came out, then renames it into place.
    private func unpack(_ zip: [UInt8], into folder: String, root: String) async throws(InstallError) {
        let files = FileManager.default
        let token = (0..<8).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
        let staging = root + "/.unpack-" + token
        let archive = root + "/.download-" + token + ".zip"
        defer {
            try? files.removeItem(atPath: staging)
            try? files.removeItem(atPath: archive)
        }
        do {
            try files.createDirectory(atPath: staging, withIntermediateDirectories: true)
            guard files.createFile(atPath: archive, contents: Data(zip)) else {
                throw InstallError("cannot write \(archive)")
            }
        } catch let error as InstallError {
            throw error
        } catch {
            throw InstallError("cannot write under \(root): \(error)")
        }
        do {
            try await OneShotCommand.run(
                StdioCommand(command: "/usr/bin/unzip", arguments: ["-qq", "-o", archive, "-d", staging]),
                timeout: Self.unzipTimeout
            )
        } catch {
            throw InstallError(error.description)
        }
        try Self.checkTree(staging)
        do {
            try files.moveItem(atPath: staging, toPath: folder)
        } catch {
            if files.fileExists(atPath: folder + "/manifest.json") { return }  // another add of the same bundle won
            throw InstallError("cannot move the bundle into \(folder): \(error)")
        }
    }

    /// The unpacked tree again, as the files are: no link, and no more bytes than the directory said at most.
    private static func checkTree(_ folder: String) throws(InstallError) {
        guard let names = try? FileManager.default.subpathsOfDirectory(atPath: folder) else {
            throw InstallError("cannot read \(folder)")
        }
        guard names.count <= BundleZipCheck.maxEntries else { throw InstallError("it unpacked to too many files") }
        var total = 0
        for name in names {
            var status = stat()
            guard lstat(folder + "/" + name, &status) == 0 else { throw InstallError("cannot read \(name)") }
            if status.st_mode & S_IFMT == S_IFLNK { throw InstallError("\(name) unpacked as a symbolic link") }
            total += Int(status.st_size)
            guard total <= BundleZipCheck.maxUnpackedBytes else {
                throw InstallError("it unpacked to more than its directory said")
            }
        }
    }
}

/// Why a bundle could not be fetched or unpacked.
struct InstallError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension String {
    /// Two hexadecimal digits.
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
