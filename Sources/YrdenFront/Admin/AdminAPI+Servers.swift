import Logging
import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `/servers` and `/servers/{id}`: list, add, read, replace, patch and remove servers.
///
/// Changes go through the config store, which validates, saves and then applies them one at a time, so an
/// answer of 2xx means the file and the running gateway agree. A server's `ETag` versions its entry; `PUT`,
/// `PATCH` and `DELETE` with `If-Match` apply only to the version the client read (412 otherwise).
extension AdminAPI {
    static let entryTitle = "Invalid server entry"

    func listServers() async -> HTTPResponse {
        var servers: [JSONValue] = []
        for status in gateway.registry.statuses {
            servers.append(await view(of: status).json)
        }
        return FrontResponses.json(200, ["servers": .array(servers)])
    }

    func getServer(_ id: String) async throws(AdminProblem) -> HTTPResponse {
        try await answer(200, viewOf: id)
    }

    func createServer(_ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        let body = try AdminRequestBody.parse(request, as: AdminRequestBody.json).get()
        if RegistryServerJSON.isServerJSON(body) { return try await createServerFromRegistry(body, request) }
        let (id, entry) = try NewServerRequest.parse(body)
        do {
            try await store.addServer(id: id, entry: entry)
        } catch {
            throw NewServerRequest.refused(error)
        }
        logger.info("admin API: server added", metadata: ["server": "\(id)"])
        return try await answer(201, viewOf: id, headers: ["Location": "\(Self.prefix)servers/\(id)"])
    }

    func replaceServer(_ id: String, _ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        let entry = try AdminRequestBody.parse(request, as: AdminRequestBody.json).get()
        let restarted: Bool
        do {
            restarted = try await store.replaceServer(
                id: id,
                entry: entry,
                expecting: AdminPrecondition.expected(by: request)
            )
        } catch {
            throw AdminProblem(error, title: Self.entryTitle, subject: "server entry")
        }
        logger.info("admin API: server replaced", metadata: ["server": "\(id)", "restarted": "\(restarted)"])
        await sweepBundles()
        return try await answer(200, viewOf: id)
    }

    func patchServer(_ id: String, _ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        let patch = try AdminRequestBody.parse(request, as: AdminRequestBody.mergePatch).get()
        guard case .object = patch else {
            throw .invalid(
                [
                    ConfigProblem(
                        path: "",
                        message: "the patch is \(patch.typeName), not an object",
                        fix: #"send the members to change as an object, such as {"disabled": true}"#
                    )
                ],
                title: Self.entryTitle,
                subject: "patch"
            )
        }
        let restarted: Bool
        do {
            restarted = try await store.patchServer(
                id: id,
                patch: patch,
                expecting: AdminPrecondition.expected(by: request)
            )
        } catch {
            throw AdminProblem(error, title: Self.entryTitle, subject: "patched server entry")
        }
        logger.info("admin API: server patched", metadata: ["server": "\(id)", "restarted": "\(restarted)"])
        return try await answer(200, viewOf: id)
    }

    /// Answers once the server has stopped: a stdio child has exited and been reaped, its tools are gone. A
    /// server that takes longer than the stop limit is removed all the same and answered with a 504 that says so.
    func deleteServer(_ id: String, _ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        do {
            try await store.removeServer(id: id, expecting: AdminPrecondition.expected(by: request))
        } catch {
            throw AdminProblem(error, title: Self.entryTitle, subject: "server entry")
        }
        logger.info("admin API: server removed", metadata: ["server": "\(id)"])
        await sweepBundles()
        return HTTPResponse(status: 204)
    }

    // MARK: - Helpers shared by the server operations

    /// The status of server `id`, or 404 for an id that names no server (or could not be one).
    func status(of id: String) throws(AdminProblem) -> ServerStatus {
        guard ServerIdentifier.isValid(id, separator: gateway.settings.toolSeparator),
            let status = gateway.registry.status(of: id)
        else { throw .unknownServer(id) }
        return status
    }

    /// The server's view as it is right now (after a change took effect).
    func currentView(of id: String) async throws(AdminProblem) -> ServerView {
        await view(of: try status(of: id))
    }

    /// The server's view with its entry's `ETag`, for the answers that show one server.
    func answer(
        _ status: Int,
        viewOf id: String,
        headers: HTTPHeaders = []
    ) async throws(AdminProblem)
        -> HTTPResponse
    {
        var headers = headers
        let view = try await currentView(of: id)
        if let etag = await store.entryTag(id) { headers.add(name: "ETag", value: etag) }
        return FrontResponses.json(status, view.json, headers: headers)
    }

    func view(of status: ServerStatus) async -> ServerView {
        let entry = await store.redactedEntry(status.id) ?? .object(JSONObject())
        return ServerView(status: status, entry: entry)
    }
}
