import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer

/// `/servers/{id}/connect`, `/disconnect` and `/restart`: what an operator does to a running server without
/// changing its entry. None waits for the server to come up; the answer is the server's view once the request took
/// effect, and `server.state` events follow the rest. They take their turn with the config changes, and a
/// stop waits at most the stop limit (504 past it, saying the server is being stopped in the background).
extension AdminAPI {
    func connectServer(_ id: String) async throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        do { try await store.connectServer(id: id) } catch { throw Self.problem(for: error) }
        // The connection takes the command on its own task; the answer shows it taken (`connecting`).
        _ = await gateway.lifecycle.commandsCarriedOut(for: id)
        return try await accepted(id)
    }

    func disconnectServer(_ id: String) async throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        do { try await store.disconnectServer(id: id) } catch { throw Self.problem(for: error) }
        return try await accepted(id)
    }

    func restartServer(_ id: String) async throws(AdminProblem) -> HTTPResponse {
        let status = try status(of: id)
        // Checked first so that restarting a disabled server changes nothing, as the 409 promises.
        guard !status.spec.disabled else { throw Self.disabledConflict(id) }
        do { try await store.restartServer(id: id) } catch { throw Self.problem(for: error) }
        return try await accepted(id)
    }

    private func accepted(_ id: String) async throws(AdminProblem) -> HTTPResponse {
        FrontResponses.json(202, try await currentView(of: id).json)
    }

    static func disabledConflict(_ id: String) -> AdminProblem {
        .conflict(#"server "\#(id)" is disabled; enable it first (PATCH {"disabled": false})"#)
    }

    static func problem(for error: ControlError) -> AdminProblem {
        switch error {
        case .unknownServer(let id): .unknownServer(id)
        case .duplicateServer(let id): .conflict(#"server "\#(id)" already exists"#)
        case .conflict(let message): .conflict(message)
        }
    }

    static func problem(for error: ConfigStoreError) -> AdminProblem {
        AdminProblem(error, title: "Not done", subject: "server")
    }
}
