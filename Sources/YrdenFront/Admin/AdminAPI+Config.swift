import Logging
import YrdenConfig
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `/config`: the whole document, read and replaced as one.
extension AdminAPI {
    static let configTitle = "Invalid config"

    func getConfig() async -> HTTPResponse {
        FrontResponses.json(200, Self.withServersSection(await store.redactedDocument()))
    }

    /// Validates, saves and reconciles: only servers whose entry changed restart.
    func replaceConfig(_ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        let document = try AdminRequestBody.parse(request, as: AdminRequestBody.json).get()
        // Required here though optional in a file: a document that forgot it would remove every server.
        if case .object(let root) = document, root["mcpServers"] == nil {
            throw .invalid(
                [
                    ConfigProblem(
                        path: "mcpServers",
                        message: "mcpServers is missing",
                        fix: #"send every server under "mcpServers" ({} to remove them all)"#
                    )
                ],
                title: Self.configTitle,
                subject: "config"
            )
        }
        let changes: ReconcileChanges
        do {
            changes = try await store.replaceDocument(document)
        } catch {
            throw AdminProblem(error, title: Self.configTitle, subject: "config")
        }
        logger.info(
            "admin API: config replaced",
            metadata: [
                "added": "\(changes.added)", "removed": "\(changes.removed)", "restarted": "\(changes.restarted)",
            ]
        )
        let body: JSONValue = [
            "config": Self.withServersSection(await store.redactedDocument()),
            "changes": [
                "added": .array(changes.added.map(JSONValue.string)),
                "removed": .array(changes.removed.map(JSONValue.string)),
                "restarted": .array(changes.restarted.map(JSONValue.string)),
                "unchanged": .array(changes.unchanged.map(JSONValue.string)),
            ],
        ]
        return FrontResponses.json(200, body)
    }

    /// The document with `mcpServers` present (`{}` when the file has none), as the API promises.
    static func withServersSection(_ document: JSONValue) -> JSONValue {
        guard case .object(var root) = document else { return document }
        if root["mcpServers"] == nil { root["mcpServers"] = .object(JSONObject()) }
        return .object(root)
    }
}
