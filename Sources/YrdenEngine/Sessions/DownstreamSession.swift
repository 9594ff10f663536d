import Synchronization
import YrdenProtocol
import YrdenTransport

/// One MCP client of the gateway, from `initialize` until it ends (DELETE, expiry, or gateway stop).
///
/// Holds what must be per client: the negotiated revision, the calls it has in flight (so it can cancel
/// them, and so a reused id is refused), and where its server-initiated messages go.
package final class DownstreamSession: Sendable {
    package let id: String
    package let protocolVersion: String
    package let clientInfo: JSONValue
    /// What the client said it can do at `initialize`: the requests the gateway may relay to it.
    package let capabilities: JSONObject
    /// The aggregate, or the one server the client connected to alone.
    package let scope: CatalogScope
    /// Who opened it, for the per-client bound; `nil` for a client that bound does not apply to (stdio).
    let client: ClientKey?
    /// Who opened it: every later request on it must come from the same principal, and its calls act for it.
    package let caller: Caller
    /// The gateway's requests to this client (relayed from upstreams) that wait for its answer.
    let asks: ClientAsks

    private struct State {
        var inFlight: [JSONRPCID: CallHandle] = [:]
        /// Calls in flight the client cancelled: their answers must not be sent (a subset of `inFlight`).
        var cancelledByClient: Set<JSONRPCID> = []
        var lastSeen: ContinuousClock.Instant
        var outbox = Outbox()
        var ended = false
        /// What `logging/setLevel` asked for; `nil`: no log messages.
        var logLevel: LoggingLevel?
        /// The URL elicitations relayed to the client, newest last, whose completion it is to hear of.
        var elicitations: [String] = []
    }

    private let state: Mutex<State>
    /// The clock idle time is counted on: the gateway's (``SessionStore``'s), so a test moves it.
    private let time: any TimeSource

    init(
        id: String,
        protocolVersion: String,
        clientInfo: JSONValue,
        capabilities: JSONObject = [:],
        scope: CatalogScope = .gateway,
        client: ClientKey? = nil,
        caller: Caller = .anonymous,
        time: any TimeSource = SystemTime()
    ) {
        self.time = time
        asks = ClientAsks(time: time)
        state = Mutex(State(lastSeen: time.now))
        self.id = id
        self.protocolVersion = protocolVersion
        self.clientInfo = clientInfo
        self.capabilities = capabilities
        self.scope = scope
        self.client = client
        self.caller = caller
    }

    package var lastSeen: ContinuousClock.Instant { state.withLock { $0.lastSeen } }

    /// The least severe log message the client wants (`logging/setLevel`); `nil` until it asks.
    package internal(set) var logLevel: LoggingLevel? {
        get { state.withLock { $0.logLevel } }
        set { state.withLock { $0.logLevel = newValue } }
    }

    /// URL elicitations remembered per session for their completion notice; older ones are forgotten.
    static let maxElicitations = 64

    /// Remembers a URL elicitation relayed to this client, so that its completion reaches it.
    func noteElicitation(_ id: String) {
        state.withLock { state in
            state.elicitations.append(id)
            if state.elicitations.count > Self.maxElicitations { state.elicitations.removeFirst() }
        }
    }

    /// Whether `id` is a URL elicitation relayed to this client; it is forgotten once asked about.
    func takeElicitation(_ id: String) -> Bool {
        state.withLock { state in
            guard let index = state.elicitations.firstIndex(of: id) else { return false }
            state.elicitations.remove(at: index)
            return true
        }
    }

    /// Whether the session ended (DELETE, expiry, the gateway stopping).
    var isEnded: Bool { state.withLock { $0.ended } }

    /// Whether a call of this client runs: such a session is not idle, however long the call takes.
    var hasCallsInFlight: Bool { state.withLock { !$0.inFlight.isEmpty } }

    /// Marks the session used (at `instant`, now by default), which moves its idle deadline.
    package func touch(at instant: ContinuousClock.Instant? = nil) {
        let instant = instant ?? time.now
        state.withLock { $0.lastSeen = max($0.lastSeen, instant) }
    }

    /// Registers a call; `false` when the id is already in flight (a client must not reuse it).
    func begin(_ id: JSONRPCID, handle: CallHandle) -> Bool {
        state.withLock { state in
            guard !state.ended, state.inFlight[id] == nil else { return false }
            state.inFlight[id] = handle
            return true
        }
    }

    /// Ends a call's registration; `true` when the client cancelled it, so its answer must not be sent.
    func finish(_ id: JSONRPCID) -> Bool {
        state.withLock { state in
            state.inFlight.removeValue(forKey: id)
            return state.cancelledByClient.remove(id) != nil
        }
    }

    /// `notifications/cancelled` from the client: stop the call it names, if it is still running, and
    /// remember not to answer it. An id not in flight is ignored, as the spec asks.
    func cancel(_ id: JSONRPCID, reason: String) {
        let call = state.withLock { state -> CallHandle? in
            guard let call = state.inFlight[id] else { return nil }
            state.cancelledByClient.insert(id)
            return call
        }
        call?.cancel(reason: reason)
    }

    /// Server-initiated messages (list changes) for this client's notification stream.
    package func deliver(_ message: JSONRPCMessage) {
        let sink = state.withLock { state in state.outbox.deliver(message) }
        sink?.yield(message)
    }

    /// Opens the stream that carries server-initiated messages (the GET stream). A newer stream replaces an
    /// older one, because each message must go out on exactly one stream.
    package func openNotificationStream() -> AsyncStream<JSONRPCMessage> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: JSONRPCMessage.self,
            bufferingPolicy: .bufferingNewest(256)
        )
        let opened = state.withLock { state in state.ended ? nil : state.outbox.attach(continuation) }
        guard let (previous, backlog) = opened else {
            continuation.finish()
            return stream
        }
        previous?.finish()
        backlog.forEach { continuation.yield($0) }
        return stream
    }

    /// Ends the session: its calls are cancelled upstream and its stream closes.
    ///
    /// The calls its client cancelled stay marked: a call whose task has not finished yet must still find,
    /// when it does, that its answer is not to be sent (the set only shrinks, as those tasks finish).
    func end() {
        let (calls, sink) = state.withLock { state in
            state.ended = true
            defer { state.inFlight.removeAll() }
            return (Array(state.inFlight.values), state.outbox.detach())
        }
        calls.forEach { $0.cancel(reason: "the session ended") }
        sink?.finish()
        asks.failAll(JSONRPCError(code: -32603, message: "the client's session ended before it answered"))
    }
}

/// Where server-initiated messages of one session wait or go: to the open stream, or (bounded) into a backlog
/// until one opens.
private struct Outbox {
    var sink: AsyncStream<JSONRPCMessage>.Continuation?
    var backlog: [JSONRPCMessage] = []
    static let maxBacklog = 64

    /// Returns the sink to yield to outside the lock, or queues the message.
    mutating func deliver(_ message: JSONRPCMessage) -> AsyncStream<JSONRPCMessage>.Continuation? {
        if let sink { return sink }
        if !backlog.contains(message) {
            backlog.append(message)
            if backlog.count > Self.maxBacklog { backlog.removeFirst() }
        }
        return nil
    }

    mutating func attach(
        _ continuation: AsyncStream<JSONRPCMessage>.Continuation
    ) -> (
        AsyncStream<JSONRPCMessage>.Continuation?, [JSONRPCMessage]
    ) {
        defer {
            sink = continuation
            backlog.removeAll()
        }
        return (sink, backlog)
    }

    mutating func detach() -> AsyncStream<JSONRPCMessage>.Continuation? {
        defer { sink = nil }
        return sink
    }
}
