import Logging
import YrdenConfig
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `/servers` and `/servers/{id}`: list, add, read, replace, patch and remove servers.
///
/// Changes go through the config store, which validates, saves and then applies them, so an answer of 2xx
/// means the file and the running gateway agree.
extension AdminAPI {
    static let entryTitle = "Invalid server entry"

    func listServers() async -> HTTPResponse {
        var servers: [JSONValue] = []
        for status in gateway.snapshot.statuses {
            servers.append(await view(of: status).json)
        }
        return FrontResponses.json(200, ["servers": .array(servers)])
    }

    func getServer(_ id: String) async throws(AdminProblem) -> HTTPResponse {
        FrontResponses.json(200, await view(of: try status(of: id)).json)
    }

    func createServer(_ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        let body = try AdminRequestBody.parse(request, as: AdminRequestBody.json).get()
        let (id, entry) = try NewServerRequest.parse(body)
        do {
            try await store.addServer(id: id, entry: entry)
        } catch {
            throw NewServerRequest.refused(error)
        }
        logger.info("admin API: server added", metadata: ["server": "\(id)"])
        let created = try await currentView(of: id)
        return FrontResponses.json(201, created.json, headers: ["Location": "\(Self.prefix)servers/\(id)"])
    }

    func replaceServer(_ id: String, _ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        let entry = try AdminRequestBody.parse(request, as: AdminRequestBody.json).get()
        let restarted: Bool
        do {
            restarted = try await store.replaceServer(id: id, entry: entry)
        } catch {
            throw AdminProblem(error, title: Self.entryTitle, subject: "server entry")
        }
        logger.info("admin API: server replaced", metadata: ["server": "\(id)", "restarted": "\(restarted)"])
        return FrontResponses.json(200, try await currentView(of: id).json)
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
            restarted = try await store.patchServer(id: id, patch: patch)
        } catch {
            throw AdminProblem(error, title: Self.entryTitle, subject: "patched server entry")
        }
        logger.info("admin API: server patched", metadata: ["server": "\(id)", "restarted": "\(restarted)"])
        return FrontResponses.json(200, try await currentView(of: id).json)
    }

    /// Answers once the server has stopped: a stdio child has exited and been reaped, its tools are gone.
    func deleteServer(_ id: String) async throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        do {
            try await store.removeServer(id: id)
        } catch {
            throw AdminProblem(error, title: Self.entryTitle, subject: "server entry")
        }
        memory.forget(id)
        logger.info("admin API: server removed", metadata: ["server": "\(id)"])
        return HTTPResponse(status: 204)
    }

    // MARK: - Helpers shared by the server operations

    /// The status of server `id`, or 404 for an id that names no server (or could not be one).
    func status(of id: String) throws(AdminProblem) -> ServerStatus {
        guard ServerIdentifier.isValid(id, separator: gateway.settings.toolSeparator),
            let status = gateway.snapshot.status(of: id)
        else { throw .unknownServer(id) }
        return status
    }

    /// The server's view as it is right now (after a change took effect).
    func currentView(of id: String) async throws(AdminProblem) -> ServerView {
        await view(of: try status(of: id))
    }

    func view(of status: ServerStatus) async -> ServerView {
        let entry = await store.redactedEntry(status.id) ?? .object(JSONObject())
        return ServerView(status: status, entry: entry, memory: memory)
    }
}
