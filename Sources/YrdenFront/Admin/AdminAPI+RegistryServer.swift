import Logging
import YrdenConfig
import YrdenControl
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
        if let bundle = conversion.bundle {
            throw .invalid(
                [
                    ConfigProblem(
                        path: bundle.path,
                        message: "an mcpb bundle (\(bundle.url.quotedForProblem)) is not installed by this gateway",
                        fix:
                            "choose a pypi, npm or oci package or a remote of the entry with ?use=, or run the bundle yourself"
                    )
                ],
                title: Self.registryTitle,
                subject: "server.json"
            )
        }
        let id = request.query["id"] ?? conversion.suggestedID
        do {
            try await store.addServer(id: id, entry: .object(conversion.entry))
        } catch {
            throw NewServerRequest.refused(error)
        }
        logger.info(
            "admin API: server added from the MCP registry",
            metadata: [
                "server": "\(id)", "registryName": "\(conversion.name)", "version": "\(conversion.version ?? "")",
                "from": "\(conversion.source)", "notes": "\(conversion.notes.joined(separator: "; "))",
            ]
        )
        return try await answer(201, viewOf: id, headers: ["Location": "\(Self.prefix)servers/\(id)"])
    }
}

extension String {
    /// The text in JSON quotes, for a problem's message.
    fileprivate var quotedForProblem: String { JSONValue.string(self).jsonText }
}
