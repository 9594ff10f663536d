import Synchronization
import YrdenProtocol
import YrdenTelemetry
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
        /// A round of asks went to the client and its retry has not come: the call is blocked on them.
        var waitingForClient = false
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
    /// Asks that wait at once; past it the upstream's request is refused, not kept.
    static let maxAsks = 16

    /// Who made the call, for the per-client bound of ``ParkedCalls``; `nil` when unknown (stdio).
    let client: ClientKey?
    /// The server the call runs on, for the per-server bound of ``ParkedCalls``.
    let server: String

    /// The gateway's clock, for gathering asks.
    let time: any TimeSource
    /// The span of the request that started the call: its retry's SERVER span is a child of it, so the call
    /// and its retries are one trace. `nil` when tracing is off.
    let trace: SpanContext?

    init(
        capabilities: JSONObject,
        client: ClientKey? = nil,
        server: String = "",
        reissues: Bool = false,
        time: any TimeSource = .system,
        trace: SpanContext? = nil
    ) {
        self.time = time
        self.trace = trace
        self.capabilities = ClientCapabilities.kept(from: capabilities)
        self.client = client
        self.server = server
        self.reissues = reissues
    }

    /// Whether the call is blocked on asks its client was given and has not answered (see
    /// ``ServerRequestRelay/isWaitingForClient``).
    var isWaitingForClient: Bool { state.withLock { $0.waitingForClient && !$0.asks.isEmpty } }

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
        if state.withLock({ $0.outcome == nil }) { try? await time.sleep(until: time.now + Self.gathering) }
        return state.withLock { state in
            if let outcome = state.outcome { return .final(outcome) }
            state.waitingForClient = true
            return .asks(JSONObject(state.asks.map { ($0.key, $0.value.request) }))
        }
    }

    /// The upstream's request, waiting for the client's answer through a round and a retry.
    func ask(_ method: String, params: JSONValue?) async -> Result<JSONValue, JSONRPCError> {
        await withCheckedContinuation { continuation in
            let (admitted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
                guard state.outcome == nil, state.asks.count < Self.maxAsks else { return (false, nil) }
                defer { state.nextKey += 1 }
                var ask: JSONObject = ["method": .string(method)]
                if let params { ask["params"] = params }
                state.asks["ask-\(state.nextKey)"] = Ask(
                    request: .object(ask),
                    continuation: continuation,
                    method: method
                )
                defer { state.waiter = nil }
                return (true, state.waiter)
            }
            guard admitted else {
                return continuation.resume(
                    returning: .failure(.internalError("the call has \(Self.maxAsks) requests waiting for its client"))
                )
            }
            waiter?.resume()
        }
    }

    /// The client's answers (`inputResponses`); an ask it left out is asked again in the next round.
    func answer(_ responses: JSONObject) {
        let answered = state.withLock { state in
            state.waitingForClient = false
            return responses.compactMap { key, value in state.asks.removeValue(forKey: key).map { ($0, value) } }
        }
        for (ask, value) in answered { ask.continuation.resume(returning: .success(value)) }
    }

    /// Ends the call: what it asked is answered as refused (an elicitation as cancelled, as 2026-07-28 says
    /// of a retry that never comes), then the upstream is told (`notifications/cancelled`). In that order:
    /// cancelling first ends the call, whose end would answer the asks before this does.
    func cancel(_ reason: String) {
        let asks = state.withLock { state in
            defer { state.asks.removeAll() }
            return Array(state.asks.values)
        }
        for ask in asks { ask.continuation.resume(returning: Self.unanswered(ask.method, reason)) }
        handle.cancel(reason: reason)
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
        for ask in asks { ask.continuation.resume(returning: Self.unanswered(ask.method, "the call already ended")) }
        waiter?.resume()
    }

    /// What an ask the client never answered gets: an elicitation is cancelled (the user did not act, as
    /// MCP has it), anything else refused with `reason`.
    private static func unanswered(_ method: String, _ reason: String) -> Result<JSONValue, JSONRPCError> {
        method == MCPMethod.elicitationCreate
            ? .success(["action": "cancel"]) : .failure(.internalError("the client did not answer: \(reason)"))
    }
}

/// Takes what a handshake-era upstream asks during a parked call: the client's declared capabilities are
/// checked, the request is put in 2026-07-28's shape, and it waits in the ``ParkedCall`` for a round.
struct ParkingRelay: ServerRequestRelay {
    let call: ParkedCall

    var caller: ObjectIdentifier { ObjectIdentifier(call) }
    /// The asks wait in the call (``ParkedCall/maxAsks``, in ``ParkedCalls``), not in a relay slot.
    var waitsOutsideRelaySlots: Bool { true }
    var isWaitingForClient: Bool { call.isWaitingForClient }

    func relay(_ request: JSONRPCRequest) async -> Result<JSONValue, JSONRPCError> {
        if let refusal = SessionRelay.refusal(of: request, capabilities: call.capabilities) { return .failure(refusal) }
        // 2026-07-28's input requests carry no `_meta`, task, or elicitation id of the handshake era.
        var params = request.params?.objectValue ?? [:]
        for key in ["_meta", "task", "elicitationId"] { params[key] = nil }
        return await call.ask(request.method, params: .object(params))
    }
}
