import Logging
import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `POST /servers` with a `server.json` of the MCP registry as its body: the entry is made from it
/// (`RegistryServerJSON`) and added as any new server is. The query's `id` names the server (else one made
/// from the entry's `name`), its `use` the package or remote to take (`packages[1]`, `remotes[0]`; else the
/// first usable package, then remote).
extension AdminAPI {
    static let registryTitle = "Invalid server.json"

    func createServerFromRegistry(_ body: JSONValue, _ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse
    {
        let conversion: RegistryConversion
        do {
            conversion = try RegistryServerJSON.convert(body, choice: request.query["use"])
        } catch {
            throw .invalid(error.problems, title: Self.registryTitle, subject: "server.json")
        }
        var entry = conversion.entry
        var notes = conversion.notes
        // The bundle is held from its download until the entry naming it is in the config (or refused).
        if let bundle = conversion.bundle { BundleSweep.hold(bundle.sha256) }
        defer { if let bundle = conversion.bundle { BundleSweep.release(bundle.sha256) } }
        if let bundle = conversion.bundle {
            (entry, notes) = try await installed(bundle, notes: notes)
        }
        let id = request.query["id"] ?? conversion.suggestedID
        do {
            try await store.addServer(id: id, entry: .object(entry))
        } catch {
            throw NewServerRequest.refused(error)
        }
        logger.info(
            "admin API: server added from the MCP registry",
            metadata: [
                "server": "\(id)", "registryName": "\(conversion.name)", "version": "\(conversion.version ?? "")",
                "from": "\(conversion.source)", "notes": "\(notes.joined(separator: "; "))",
            ]
        )
        return try await answer(201, viewOf: id, headers: ["Location": "\(Self.prefix)servers/\(id)"])
    }
}

extension AdminAPI {
    /// An `mcpb` package's bundle downloaded, checked and unpacked into the data directory (off the event
    /// loop), and the entry its manifest describes.
    private func installed(
        _ bundle: RegistryBundle,
        notes: [String]
    ) async throws(AdminProblem) -> (JSONObject, [String]) {
        let packagePath = String(bundle.path.dropLast(".fileSha256".count))
        guard let directory = dataDirectory,
            let client = gateway.connector.httpClient
        else {
            throw .invalid(
                [
                    ConfigProblem(
                        path: packagePath,
                        message: "an mcpb bundle is unpacked into the data directory, and this gateway has none set",
                        fix: "start the gateway with --data-dir, gateway.dataDir or YRDEN_DATA_DIR (or with HOME set)"
                    )
                ],
                title: Self.registryTitle,
                subject: "server.json"
            )
        }
        let installer = BundleInstaller(client: client, dataDirectory: directory)
        let result = await Task.detached { () -> Result<(entry: JSONObject, notes: [String]), RegistryEntryError> in
            do throws(RegistryEntryError) {
                return .success(try await installer.install(bundle))
            } catch {
                return .failure(error)
            }
        }.value
        switch result {
        case .success(let installed): return (installed.entry, notes + installed.notes)
        case .failure(let error): throw .invalid(error.problems, title: Self.registryTitle, subject: "server.json")
        }
    }
}

extension String {
    /// The text in JSON quotes, for a problem's message.
    fileprivate var quotedForProblem: String { JSONValue.string(self).jsonText }
}
