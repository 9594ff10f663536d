import Synchronization
import YrdenProtocol
import YrdenTransport

/// A call of a 2026-07-28 client to a handshake-era upstream, kept running while the client is asked what
/// the upstream asked.
///
/// The upstream's requests during the call (sampling, elicitation, roots) wait here under keys of the
/// gateway's; each round hands the client every one still unanswered, as `inputRequests`, and the client's
/// retry answers them. The call ends with the upstream's answer, or when it is cancelled (the client left,
/// or never retried).
final class ParkedCall: Sendable {
    /// What the client is told next.
    enum Round: Sendable {
        case final(Result<JSONValue, JSONRPCError>)
        /// Keys to `{method, params}`, in 2026-07-28's shape.
        case asks(JSONObject)
    }

    private struct Ask {
        var request: JSONValue
        var continuation: CheckedContinuation<Result<JSONValue, JSONRPCError>, Never>
        var method: String
    }

    private struct State {
        var asks: [String: Ask] = [:]
        var outcome: Result<JSONValue, JSONRPCError>?
        var waiter: CheckedContinuation<Void, Never>?
        var nextKey = 1
    }

    private let state = Mutex(State())
    /// Cancels the upstream call.
    let handle = CallHandle()
    /// What the client declared for the request that started the call: what it may be asked.
    let capabilities: JSONObject
    /// No call runs: the server refused it until URL elicitations are done (-32042), and the retry makes it
    /// again.
    let reissues: Bool

    /// Asks that arrive within this of the first one go to the client in the same round.
    static let gathering: Duration = .milliseconds(50)

    init(capabilities: JSONObject, reissues: Bool = false) {
        self.capabilities = capabilities
        self.reissues = reissues
    }

    /// Runs the upstream call. Not a child of the request that started it: the call outlives that request
    /// (it is parked until the retry) and ends with its own deadline, its cancellation, or the answer.
    func start(_ call: @escaping @Sendable () async -> Result<JSONValue, JSONRPCError>) {
        Task { self.finish(await call()) }
    }

    /// The next thing to tell the client: the call's answer, or what the upstream asked that is unanswered.
    func nextRound() async -> Round {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                guard state.outcome == nil, state.asks.isEmpty else { return true }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        if state.withLock({ $0.outcome == nil }) { try? await Task.sleep(for: Self.gathering) }
        return state.withLock { state in
            if let outcome = state.outcome { return .final(outcome) }
            return .asks(JSONObject(state.asks.map { ($0.key, $0.value.request) }))
        }
    }

    /// The upstream's request, waiting for the client's answer through a round and a retry.
    func ask(_ method: String, params: JSONValue?) async -> Result<JSONValue, JSONRPCError> {
        await withCheckedContinuation { continuation in
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.nextKey += 1 }
                var ask: JSONObject = ["method": .string(method)]
                if let params { ask["params"] = params }
                state.asks["ask-\(state.nextKey)"] = Ask(
                    request: .object(ask),
                    continuation: continuation,
                    method: method
                )
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// The client's answers (`inputResponses`); an ask it left out is asked again in the next round.
    func answer(_ responses: JSONObject) {
        let answered = state.withLock { state in
            responses.compactMap { key, value in state.asks.removeValue(forKey: key).map { ($0, value) } }
        }
        for (ask, value) in answered { ask.continuation.resume(returning: .success(value)) }
    }

    /// Ends the call: the upstream is told (`notifications/cancelled`), and what it asked is answered as
    /// refused (an elicitation as cancelled, as 2026-07-28 says of a retry that never comes).
    func cancel(_ reason: String) {
        handle.cancel(reason: reason)
        let asks = state.withLock { state in
            defer { state.asks.removeAll() }
            return Array(state.asks.values)
        }
        for ask in asks {
            let refused: Result<JSONValue, JSONRPCError> =
                ask.method == MCPMethod.elicitationCreate
                ? .success(["action": "cancel"]) : .failure(.internalError("the client did not answer: \(reason)"))
            ask.continuation.resume(returning: refused)
        }
    }

    private func finish(_ outcome: Result<JSONValue, JSONRPCError>) {
        let (waiter, asks) = state.withLock { state in
            state.outcome = outcome
            defer {
                state.waiter = nil
                state.asks.removeAll()
            }
            return (state.waiter, Array(state.asks.values))
        }
        for ask in asks { ask.continuation.resume(returning: .failure(.internalError("the call already ended"))) }
        waiter?.resume()
    }
}

/// Takes what a handshake-era upstream asks during a parked call: the client's declared capabilities are
/// checked, the request is put in 2026-07-28's shape, and it waits in the ``ParkedCall`` for a round.
struct ParkingRelay: ServerRequestRelay {
    let call: ParkedCall

    var caller: ObjectIdentifier { ObjectIdentifier(call) }

    func relay(_ request: JSONRPCRequest) async -> Result<JSONValue, JSONRPCError> {
        if let refusal = SessionRelay.refusal(of: request, capabilities: call.capabilities) { return .failure(refusal) }
        // 2026-07-28's input requests carry no `_meta`, task, or elicitation id of the handshake era.
        var params = request.params?.objectValue ?? [:]
        for key in ["_meta", "task", "elicitationId"] { params[key] = nil }
        return await call.ask(request.method, params: .object(params))
    }
}

/// The parked calls, each until its client retries or its token expires; at most ``limit`` at once.
final class ParkedCalls: Sendable {
    private struct Entry {
        var call: ParkedCall
        var expiry: Task<Void, Never>
    }

    private let entries = Mutex([String: Entry]())
    private let next = Atomic<Int>(1)
    static let limit = 256

    /// Parks `call` until `deadline`, when it is cancelled unless taken first; its id, or `nil` when the
    /// table is full (the caller ends the call).
    func park(_ call: ParkedCall, for lifetime: Duration) -> String? {
        let id = "p\(next.wrappingAdd(1, ordering: .relaxed).oldValue)-\(UInt64.random(in: 0...UInt64.max))"
        // Bounded by the table's limit, and ends at the token's expiry or when the retry takes the call.
        let expiry = Task {
            guard (try? await Task.sleep(for: lifetime)) != nil else { return }
            self.take(id)?.cancel("the client did not retry before the requestState expired")
        }
        let parked = entries.withLock { entries in
            guard entries.count < Self.limit else { return false }
            entries[id] = Entry(call: call, expiry: expiry)
            return true
        }
        guard parked else {
            expiry.cancel()
            return nil
        }
        return id
    }

    /// Takes the call out (a token resumes its call once).
    func take(_ id: String) -> ParkedCall? {
        guard let entry = entries.withLock({ $0.removeValue(forKey: id) }) else { return nil }
        entry.expiry.cancel()
        return entry.call
    }

    var count: Int { entries.withLock { $0.count } }

    /// Cancels every parked call (the gateway stops).
    func cancelAll() {
        let all = entries.withLock { entries in
            defer { entries.removeAll() }
            return Array(entries.values)
        }
        for entry in all {
            entry.expiry.cancel()
            entry.call.cancel("the gateway is stopping")
        }
    }
}
