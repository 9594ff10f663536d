import Logging
import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `/config`: the whole document, read and replaced as one.
extension AdminAPI {
    static let configTitle = "Invalid config"

    /// The document, with its version as the `ETag` a later `PUT` can send back in `If-Match`.
    func getConfig() async -> HTTPResponse {
        let (document, etag) = await store.redactedDocument()
        return FrontResponses.json(200, Self.withServersSection(document), headers: ["ETag": etag])
    }

    /// Validates, saves and reconciles: only servers whose entry changed restart. With `If-Match`, only when
    /// the config is still the version the client read (412 otherwise).
    func replaceConfig(_ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        let document = try AdminRequestBody.parse(request, as: AdminRequestBody.json).get()
        if case .object(let root) = document, let problem = Self.serversProblem(root["mcpServers"]) {
            throw .invalid([problem], title: Self.configTitle, subject: "config")
        }
        let changes: ReconcileChanges
        do {
            changes = try await store.replaceDocument(document, expecting: AdminPrecondition.expected(by: request))
        } catch {
            throw AdminProblem(error, title: Self.configTitle, subject: "config")
        }
        logger.info(
            "admin API: config replaced",
            metadata: [
                "added": "\(changes.added)", "removed": "\(changes.removed)", "restarted": "\(changes.restarted)",
            ]
        )
        await sweepBundles()
        let (saved, etag) = await store.redactedDocument()
        let body: JSONValue = [
            "config": Self.withServersSection(saved),
            "changes": [
                "added": .array(changes.added.map(JSONValue.string)),
                "removed": .array(changes.removed.map(JSONValue.string)),
                "restarted": .array(changes.restarted.map(JSONValue.string)),
                "unchanged": .array(changes.unchanged.map(JSONValue.string)),
            ],
        ]
        return FrontResponses.json(200, body, headers: ["ETag": etag])
    }

    /// What is wrong with the `mcpServers` of a replacement document. Required here though optional in a file
    /// (a document that forgot it would remove every server), and an object: `null` is not "no servers".
    static func serversProblem(_ servers: JSONValue?) -> ConfigProblem? {
        let fix = #"send every server under "mcpServers" as an object ({} to remove them all)"#
        guard let servers else { return ConfigProblem(path: "mcpServers", message: "mcpServers is missing", fix: fix) }
        guard case .object = servers else {
            return ConfigProblem(
                path: "mcpServers",
                message: "mcpServers is \(servers.typeName), not an object",
                fix: fix
            )
        }
        return nil
    }

    /// The document with `mcpServers` present (`{}` when the file has none), as the API promises.
    static func withServersSection(_ document: JSONValue) -> JSONValue {
        guard case .object(var root) = document else { return document }
        if root["mcpServers"] == nil { root["mcpServers"] = .object(JSONObject()) }
        return .object(root)
    }
}
