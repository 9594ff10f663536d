import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization
import YrdenProtocol

extension HTTPConnection {
    /// Keeps the session id from the `initialize` response.
    func captureSession(from response: UpstreamResponse) {
        guard let sessionID = response.headers.first(name: Self.sessionHeader) else { return }
        // Visible ASCII only (spec); anything else could smuggle header syntax, so it is not echoed back.
        guard !sessionID.isEmpty, sessionID.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            handler.log("ignored a session id that is not visible ASCII")
            return
        }
        state.withLock { $0.sessionID = sessionID }
    }

    /// Gets a new session after the server answered 404 to `expired` (it restarted, or dropped the session):
    /// replays the original `initialize` and `notifications/initialized`, as the spec asks of a client. Every
    /// request that met the expired session, during the renewal too, waits for the same renewal. False when the server refused; the
    /// channel is then reported closed, so the supervisor reconnects from scratch.
    func renewSession(after expired: String) async -> Bool {
        let renewal = state.withLock { state -> Task<Bool, Never> in
            if let renewal = state.renewal { return renewal }
            if state.sessionID != expired { return Task { true } }
            // Shared by every request that met the expired session, so it belongs to none of them.
            let renewal = Task { await self.replayHandshake() }
            state.renewal = renewal
            return renewal
        }
        return await renewal.value
    }

    private func replayHandshake() async -> Bool {
        defer { state.withLock { $0.renewal = nil } }
        guard let initialize = state.withLock({ $0.initializeFrame }) else { return false }
        do {
            // The expired id stays in place until the new one arrives, so nothing else is ever sent without
            // a session (the server would refuse it with 400); only this `initialize` goes without one.
            var request = makeRequest(method: .POST, accept: "application/json, text/event-stream")
            request.headers.remove(name: Self.sessionHeader)
            request.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            request.body = initialize.bytes
            _ = try await authorize(&request)
            let deadline = NIODeadline.now() + Self.timeAmount(endpoint.requestTimeout)
            let response = try await execute(request, deadline: deadline)
            guard response.status == .ok else { throw await Self.statusError(response) }
            captureSession(from: response)
            // The answer is the server's, for a request the client already has its answer to: read, not passed on.
            _ = try await readMessages(response) { _ in true }
            var initialized = makeRequest(method: .POST, accept: "application/json, text/event-stream")
            initialized.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            initialized.body = JSONRPCMessage.notification(JSONRPCNotification(method: MCPMethod.initialized))
                .serialized()
            _ = try await authorize(&initialized)
            let accepted = try await execute(initialized, deadline: deadline)
            _ = try? await accepted.body.collect(upTo: 64 * 1024)
        } catch {
            let reason = (error as? UpstreamError) ?? Self.networkError(error)
            reportClosed(
                UpstreamError(
                    reason.kind,
                    "the server ended the session and refused a new one: \(reason.message)",
                    httpStatus: reason.httpStatus
                )
            )
            return false
        }
        handler.log("the server had ended the session (HTTP 404); the gateway re-initialized it")
        return true
    }

    /// The DELETE that tells the server the session is over; best effort, bounded, errors ignored.
    func endSession() async {
        guard let sessionID = state.withLock({ $0.sessionID }) else { return }
        var request = makeRequest(method: .DELETE, accept: nil)
        request.headers.replaceOrAdd(name: Self.sessionHeader, value: sessionID)
        guard (try? await authorize(&request)) != nil || endpoint.authorizer == nil else { return }
        _ = try? await execute(request, deadline: .now() + .seconds(2))
    }
}
