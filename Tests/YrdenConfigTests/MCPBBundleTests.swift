import Testing
import YrdenProtocol

@testable import YrdenConfig

/// An MCPB bundle's zip directory checked before unpacking, and its manifest made into a stdio entry.
@Suite struct MCPBBundleTests {
    /// A zip's central directory and end record (what the check reads), one entry per name.
    static func zip(_ entries: [(name: String, size: UInt32, mode: UInt32?)]) -> [UInt8] {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func le32(_ value: UInt32) -> [UInt8] { le16(Int(value & 0xFFFF)) + le16(Int(value >> 16)) }
        var directory: [UInt8] = []
        for entry in entries {
            let name = Array(entry.name.utf8)
            directory += le32(0x0201_4b50) + le16(entry.mode == nil ? 20 : 3 << 8 | 20) + le16(20) + le16(0)
            directory += le16(0) + le16(0) + le16(0) + le32(0) + le32(entry.size) + le32(entry.size)
            directory += le16(name.count) + le16(0) + le16(0) + le16(0) + le16(0)
            directory += le32((entry.mode ?? 0) << 16) + le32(0) + name
        }
        let end =
            le32(0x0605_4b50) + le16(0) + le16(0) + le16(entries.count) + le16(entries.count)
            + le32(UInt32(directory.count)) + le32(0) + le16(0)
        return directory + end
    }

    static func refusal(_ bytes: [UInt8]) -> String? {
        do {
            _ = try BundleZipCheck.entries(of: bytes)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aPlainBundleIsListed() throws {
        let entries = try BundleZipCheck.entries(
            of: Self.zip([("manifest.json", 10, 0o100644), ("server/main.py", 20, nil)])
        )
        #expect(entries.map(\.name) == ["manifest.json", "server/main.py"])
        #expect(entries.map(\.unpackedBytes) == [10, 20])
    }

    @Test(arguments: [
        ("../escaped", "reaches outside"), ("a/../../escaped", "reaches outside"), ("/etc/passwd", "absolute"),
        ("a\\..\\b", "backslash"),
    ])
    func aNameOutsideTheFolderIsRefused(name: String, said: String) {
        let refusal = Self.refusal(Self.zip([("manifest.json", 1, nil), (name, 1, nil)]))
        #expect(refusal?.contains(said) == true, "\(refusal ?? "accepted")")
    }

    @Test func aLinkIsRefused() {
        #expect(Self.refusal(Self.zip([("link", 4, 0o120777)]))?.contains("symbolic link") == true)
    }

    @Test func aZipBombIsRefusedByItsDeclaredSizes() {
        let entries = (0..<3).map { ("f\($0)", UInt32(200 << 20), UInt32?.none) }
        #expect(Self.refusal(Self.zip(entries))?.contains("more than 512 MiB") == true)
    }

    @Test func notAZipIsRefused() {
        #expect(Self.refusal(Array("just text".utf8))?.contains("not a zip file") == true)
    }

    @Test func theManifestsConfigIsTheEntryWithItsFolderAndUserConfig() throws {
        let manifest = try JSONValue.parse(
            #"""
            {"server": {"type": "node", "entry_point": "server/index.js", "mcp_config": {"command": "node",
              "args": ["${__dirname}/server/index.js", "--root=${user_config.root_dir}"],
              "env": {"API_KEY": "${user_config.api_key}", "PRICE": "$5"}}},
             "user_config": {"api_key": {"type": "string", "sensitive": true, "required": true, "title": "API key"},
                             "root_dir": {"type": "directory", "default": "/srv"}}}
            """#
        )
        let (entry, notes) = try MCPBManifest.entry(manifest: manifest, folder: "/data/bundles/ab", path: "packages[0]")
        #expect(entry["command"] == .string("node"))
        #expect(
            entry["args"] == .array([.string("/data/bundles/ab/server/index.js"), .string("--root=${ROOT_DIR:-/srv}")])
        )
        #expect(entry["env"] == .object(["API_KEY": .string("${API_KEY}"), "PRICE": .string("$$5")]))
        #expect(entry["cwd"] == .string("/data/bundles/ab"))
        #expect(notes.contains { $0.hasPrefix("set API_KEY in the gateway's environment (secret") })
    }

    @Test func withoutConfigTheTypeRunsTheEntryPoint() throws {
        let manifest = try JSONValue.parse(#"{"server": {"type": "python", "entry_point": "main.py"}}"#)
        let (entry, _) = try MCPBManifest.entry(manifest: manifest, folder: "/b", path: "packages[0]")
        #expect(entry["command"] == .string("python3"))
        #expect(entry["args"] == .array([.string("/b/main.py")]))
    }

    @Test func anEntryPointOutsideTheBundleIsRefused() throws {
        let manifest = try JSONValue.parse(#"{"server": {"type": "binary", "entry_point": "../../bin/sh"}}"#)
        #expect(throws: RegistryEntryError.self) {
            try MCPBManifest.entry(manifest: manifest, folder: "/b", path: "packages[0]")
        }
    }
}
