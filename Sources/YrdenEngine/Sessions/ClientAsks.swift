import Synchronization
import YrdenProtocol
import YrdenTransport

/// The requests the gateway sent one client on an upstream's behalf, waiting for its answers.
///
/// Ids are the gateway's own (`yrden-<n>`), so they never meet the ids of the upstreams that asked. Each
/// ask has a deadline; at most ``limit`` wait at once, and the session's end fails them all.
final class ClientAsks: Sendable {
    private struct State {
        var next = 1
        var waiting: [JSONRPCID: CheckedContinuation<Result<JSONValue, JSONRPCError>, Never>] = [:]
        var ended: JSONRPCError?
    }

    private let state = Mutex(State())
    static let limit = 16
    /// The clock deadlines are kept on: the session's (the gateway's), so a test moves it.
    private let time: any TimeSource

    init(time: any TimeSource = SystemTime()) {
        self.time = time
    }

    /// Sends `method` to the client through `send` and waits for its answer, at most `timeout`. Cancelling
    /// the caller gives up at once (the client is told with `notifications/cancelled`).
    func ask(
        _ method: String,
        params: JSONValue?,
        timeout: Duration,
        send: @escaping @Sendable (JSONRPCMessage) -> Void
    ) async -> Result<JSONValue, JSONRPCError> {
        let id: JSONRPCID
        switch state.withLock({ state -> Result<JSONRPCID, JSONRPCError> in
            if let ended = state.ended { return .failure(ended) }
            guard state.waiting.count < Self.limit else {
                return .failure(.internalError("the client has \(Self.limit) requests unanswered already"))
            }
            defer { state.next += 1 }
            return .success(.string("yrden-\(state.next)"))
        }) {
        case .failure(let error): return .failure(error)
        case .success(let minted): id = minted
        }
        let deadline = time.now + timeout
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                guard (try? await self.time.sleep(until: deadline)) != nil else { return }
                let seconds = timeout.components.seconds
                self.finish(
                    id,
                    with: .failure(.internalError("the client did not answer \(method) within \(seconds) s"))
                )
            }
            let outcome = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let ended = state.withLock { state -> JSONRPCError? in
                        if let ended = state.ended { return ended }
                        state.waiting[id] = continuation
                        return nil
                    }
                    if let ended { return continuation.resume(returning: .failure(ended)) }
                    send(.request(JSONRPCRequest(id: id, method: method, params: params)))
                }
            } onCancel: {
                if self.finish(id, with: .failure(.internalError("the call that asked was cancelled"))) {
                    let params: JSONValue = ["requestId": id.json, "reason": "the call that asked was cancelled"]
                    send(.notification(JSONRPCNotification(method: MCPMethod.cancelled, params: params)))
                }
            }
            group.cancelAll()
            return outcome
        }
    }

    /// The client's answer to one of the gateway's requests; an id not waiting is ignored.
    func resolve(_ response: JSONRPCResponse) {
        guard let id = response.id else { return }
        finish(id, with: response.outcome)
    }

    /// Fails every ask, now and later (the session ended).
    func failAll(_ error: JSONRPCError) {
        let waiting = state.withLock { state in
            state.ended = error
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        waiting.forEach { $0.resume(returning: .failure(error)) }
    }

    @discardableResult
    private func finish(_ id: JSONRPCID, with outcome: Result<JSONValue, JSONRPCError>) -> Bool {
        guard let continuation = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return false }
        continuation.resume(returning: outcome)
        return true
    }
}
