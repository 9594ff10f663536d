import Synchronization
import YrdenProtocol

/// The gateway as an MCP client of one upstream, over any ``UpstreamChannel``.
///
/// It mints its own request ids (so ids of different downstream sessions never meet upstream), correlates
/// answers, enforces deadlines (its own ``DeadlineTimer``, no polling), relays progress to the request that asked for it, answers the upstream's
/// `ping` itself, and fails everything in flight the moment the channel closes.
package final class UpstreamClient: Sendable {
    private let channel: any UpstreamChannel
    private let pending: PendingRequests
    private let nextID = Atomic<Int>(1)
    private let time: any TimeSource
    private let timer: DeadlineTimer
    /// The envelope every request carries once the server was found to speak 2026-07-28; `nil` for a
    /// handshake-era server.
    private let envelope = Mutex<ModernStamp?>(nil)
    /// The listen stream open now (see ``listen(_:)``).
    private let listenID = Mutex<Int?>(nil)
    /// What the server was last asked to keep sending (see ``follow(_:capabilities:timeout:)``).
    let following = Mutex(Following())
    /// Notifications (bounded, list changes coalesced) and the final `closed`.
    package let events: UpstreamEvents

    /// Opens the channel with `open`, wiring its inbound side to this client. The channel's diagnostics (a
    /// child's stderr among them) go to `log`, the client's own remarks to `diagnostics` (to `log` when
    /// `nil`). Deadlines are read from and slept on `time`; `onShed` hears each notification ``events``
    /// coalesces or drops, as it happens.
    package init(
        open: (UpstreamChannelHandler) throws(UpstreamError) -> any UpstreamChannel,
        log: @escaping @Sendable (String) -> Void,
        diagnostics: UpstreamDiagnostics? = nil,
        time: any TimeSource = SystemTime(),
        onShed: @escaping @Sendable (_ coalesced: Int, _ dropped: Int) -> Void = { _, _ in }
    )
        throws(UpstreamError)
    {
        let diagnostics = diagnostics ?? UpstreamDiagnostics(note: log)
        let timer = DeadlineTimer(time: time)
        let pending = PendingRequests(wake: { timer.wake() })
        let events = UpstreamEvents(log: diagnostics.note, onShed: onShed)
        let replies = ChannelSlot()
        let relaying = RelayCount()
        let receive = { @Sendable (frame: [UInt8], related: Int?) in
            Self.receive(
                frame,
                relatedTo: related,
                pending: pending,
                events: events,
                replyChannel: replies,
                relaying: relaying,
                time: time,
                diagnostics: diagnostics
            )
        }
        let handler = UpstreamChannelHandler(
            frame: { frame in receive(frame, nil) },
            requestFailed: { id, error in
                if case .int(let id) = id { pending.fail(id, with: error) }
            },
            closed: { error in
                pending.failAll(with: error)
                timer.end()
                events.finish(error)
            },
            log: log,
            relatedFrame: { frame, id in
                guard case .int(let related) = id else { return }
                receive(frame, related)
            }
        )
        let channel = try open(handler)
        replies.set(channel)
        self.channel = channel
        self.pending = pending
        self.events = events
        self.time = time
        self.timer = timer
        // Outlives `init` by design: it ends with the client (close, the channel closing, or deinit).
        Task {
            await timer.run { now in
                let (overdue, next) = pending.takeOverdue(at: now)
                for request in overdue {
                    request.continuation.resume(throwing: Self.timeoutError(request.timeout))
                    try? replies.get()?.send(Self.cancelledFrame(request.id, reason: "timeout"))
                }
                return next
            }
        }
    }

    deinit {
        timer.end()
    }

    /// Sends a request and waits for its answer. An upstream JSON-RPC error is a `.failure` value; only the
    /// transport failing (closed, timed out, cancelled) throws.
    package func request(
        _ method: String,
        params: JSONValue?,
        options: RequestOptions
    ) async throws(UpstreamError)
        -> Result<JSONValue, JSONRPCError>
    {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        var params = params
        // A 2026-07-28 server logs only for requests that asked; a handshake-era one for its session with the
        // gateway, so a message it sends is also the events' (sessions with a level follow those).
        var askedForLogs = options.asksForLogs && options.onMessage != nil
        let logsAlsoToEvents = envelope.withLock { $0 == nil }
        if var stamp = envelope.withLock({ $0 }) {
            if let capabilities = options.clientCapabilities { stamp.capabilities = capabilities }
            stamp.logLevel = options.logLevel
            params = stamp.stamp(params)
            askedForLogs = options.logLevel != nil && options.onMessage != nil
        }
        if options.onProgress != nil {
            var object = params?.objectValue ?? [:]
            var meta = object["_meta"]?.objectValue ?? [:]
            meta["progressToken"] = .int(id)
            object["_meta"] = .object(meta)
            params = .object(object)
        }
        let frame = JSONRPCMessage.request(JSONRPCRequest(id: .int(id), method: method, params: params)).serialized()
        let now = time.now
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let entry = PendingRequests.Entry(
                        continuation: continuation,
                        deadline: now + options.timeout,
                        hardDeadline: now + max(options.timeout, options.maxTotalTimeout),
                        extendBy: options.timeout,
                        grace: options.grace,
                        onProgress: options.onProgress,
                        relay: options.relay,
                        onMessage: options.onMessage,
                        askedForLogs: askedForLogs,
                        logsAlsoToEvents: logsAlsoToEvents
                    )
                    pending.register(id, entry)
                    // Cancelled before it was registered: the cancellation handler found nothing to fail,
                    // and a request nobody waits for is not sent at all.
                    if Task.isCancelled {
                        pending.fail(id, with: UpstreamError(.cancelled, "request cancelled: the client went away"))
                        return
                    }
                    do throws(UpstreamError) {
                        try channel.send(frame, headers: options.headers)
                    } catch {
                        pending.fail(id, with: error)
                        return
                    }
                    options.handle?.bind { [weak self] reason in self?.cancel(id, reason: reason) }
                }
            } onCancel: {
                self.cancel(id, reason: "the client went away")
            }
        } catch let error as UpstreamError {
            throw error
        } catch {
            throw UpstreamError(.protocol, "\(error)")
        }
    }

    /// Requests sent and not answered yet (a call parked behind `input_required` among them).
    package var requestsInFlight: Int { pending.inFlight }

    /// From now on every request carries `stamp`'s envelope: the server speaks 2026-07-28.
    package func adopt(_ stamp: ModernStamp) {
        envelope.withLock { $0 = stamp }
    }

    /// The envelope requests carry; `nil` while the server is spoken to in the handshake era.
    package var modernStamp: ModernStamp? { envelope.withLock { $0 } }

    /// Opens the server's `subscriptions/listen` stream with `filter`, ending the one opened before (its
    /// filter changed): nobody waits for it; its notifications arrive as ``events`` for as long as the
    /// channel lives, and its final result (the server ending it) is of no one's concern.
    func listen(_ filter: JSONObject) {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        var params: JSONValue = ["notifications": .object(filter)]
        if let stamp = envelope.withLock({ $0 }) { params = stamp.stamp(params) }
        let previous = listenID.withLock { listen in
            defer { listen = id }
            return listen
        }
        if let previous { try? channel.send(Self.cancelledFrame(previous, reason: "the filter changed")) }
        let request = JSONRPCRequest(id: .int(id), method: MCPMethod.subscriptionsListen, params: params)
        try? channel.send(JSONRPCMessage.request(request).serialized())
    }

    /// Ends the listen stream open now, if any: nothing is followed any more.
    func endListening() {
        let previous = listenID.withLock { listen in
            defer { listen = nil }
            return listen
        }
        if let previous { try? channel.send(Self.cancelledFrame(previous, reason: "nothing is followed")) }
    }

    /// Sends a notification; failures are the channel's to report.
    package func notify(_ method: String, params: JSONValue? = nil) {
        let frame = JSONRPCMessage.notification(JSONRPCNotification(method: method, params: params)).serialized()
        try? channel.send(frame)
    }

    /// Stops waiting for request `id` and tells the upstream, as the spec's cancellation says.
    private func cancel(_ id: Int, reason: String) {
        guard pending.fail(id, with: UpstreamError(.cancelled, "request cancelled: \(reason)")) else { return }
        try? channel.send(Self.cancelledFrame(id, reason: reason))
    }

    /// Fails the requests overdue at `now` and tells the upstream to stop them, as the client's own timer
    /// does at each deadline; for callers that need it at a chosen instant.
    package func expireOverdueRequests(now: ContinuousClock.Instant) {
        for (id, timeout) in pending.expired(at: now) where pending.fail(id, with: Self.timeoutError(timeout)) {
            try? channel.send(Self.cancelledFrame(id, reason: "timeout"))
        }
    }

    /// Fails the requests overdue now (by the client's time source).
    package func expireOverdueRequests() {
        expireOverdueRequests(now: time.now)
    }

    private static func timeoutError(_ timeout: Duration) -> UpstreamError {
        UpstreamError(
            .timeout,
            "timed out: the server did not answer within \(timeout.components.seconds) s; the request was cancelled"
        )
    }

    /// The spec's `notifications/cancelled` for request `id`.
    private static func cancelledFrame(_ id: Int, reason: String) -> [UInt8] {
        let params: JSONValue = ["requestId": .int(id), "reason": .string(reason)]
        return JSONRPCMessage.notification(JSONRPCNotification(method: MCPMethod.cancelled, params: params))
            .serialized()
    }

    /// Closes the channel (for a child process: the full stop sequence) and fails anything still in flight.
    package func close() async {
        let error = UpstreamError(.notConnected, "the connection was closed")
        pending.failAll(with: error)
        timer.end()
        await channel.close()
        // A channel closed from this side does not report it; whoever follows `events` still must hear the end.
        events.finish(error)
    }

    /// Runs on the channel's reader thread: decode, then resolve or publish, never wait. `related` is the
    /// request the frame came with, when the transport knows.
    private static func receive(
        _ frame: [UInt8],
        relatedTo related: Int?,
        pending: PendingRequests,
        events: UpstreamEvents,
        replyChannel: ChannelSlot,
        relaying: RelayCount,
        time: any TimeSource,
        diagnostics: UpstreamDiagnostics
    ) {
        let message: JSONRPCMessage
        do {
            message = try JSONRPCMessage(try JSONValue.parse(frame))
        } catch {
            diagnostics.noteBounded("ignored a message from the server that is not JSON-RPC: \(error)")
            return
        }
        switch message {
        case .response(let response):
            guard case .int(let id) = response.id else { return }
            pending.resolve(id, with: response.outcome)
        case .notification(let notification):
            if notification.method == MCPMethod.message {
                // A log message of one request (on its POST's stream, or on a 2026-07-28 server's pipe while only
                // one request asked for logs) is that request's caller's; the rest are the upstream's events.
                switch pending.logDestination(relatedTo: related) {
                case .request(let handler, let alsoEvents):
                    handler(notification.params ?? [:])
                    if alsoEvents { events.yield(notification) }
                case .unattributable(let alsoEvents):
                    diagnostics.droppedLog()
                    if alsoEvents { events.yield(notification) }
                case .events:
                    events.yield(notification)
                }
            } else if notification.method == MCPMethod.progress {
                // Progress belongs to a request of ours or to nobody; it never queues as an event.
                if let params = notification.params, let token = params["progressToken"]?.intValue {
                    pending.progress(token, params: params, now: time.now)
                }
            } else {
                events.yield(notification)
            }
        case .request(let request):
            let reply = { @Sendable (outcome: Result<JSONValue, JSONRPCError>) in
                let response = JSONRPCResponse(id: request.id, outcome: outcome)
                try? replyChannel.get()?.send(JSONRPCMessage.response(response).serialized())
            }
            if request.method == MCPMethod.ping { return reply(.success([:])) }
            let relay: any ServerRequestRelay
            switch pending.relayTarget(relatedTo: related) {
            case .relay(let target): relay = target
            case let refused:
                let refusal = Self.unattributed(request.method, refused)
                diagnostics.noteBounded("refused \(request.method) from the server: \(refusal.message)")
                return reply(.failure(refusal))
            }
            // A relay that keeps what it is asked in a bounded place of its own takes no slot.
            let holdsSlot = !relay.waitsOutsideRelaySlots
            let client = relay.clientID
            if holdsSlot, let refusal = relaying.acquire(for: client) {
                diagnostics.noteBounded("refused \(request.method) from the server: \(refusal.message)")
                return reply(.failure(refusal))
            }
            // Outlives this reader callback by design: the client's answer may take a person's time, and the
            // reader must go on. It ends with the relay's own deadline.
            Task {
                let outcome = await relay.relay(request)
                if case .failure(let refusal) = outcome {
                    // Refused by the gateway (a capability the client did not declare) or by the client.
                    diagnostics.noteBounded("refused \(request.method) from the server: \(refusal.message)")
                }
                reply(outcome)
                if holdsSlot { relaying.release(for: client) }
            }
        }
    }

    /// The refusal of a request the gateway cannot give to one client: none of its calls is in flight, or
    /// calls of several clients are (a stdio server does not say which one it asks about).
    static func unattributed(_ method: String, _ target: RelayTarget) -> JSONRPCError {
        let reason =
            switch target {
            case .severalCallers:
                "calls of several clients are in flight, and the server does not say which one it asks about"
            case .noCall, .relay:
                "it was sent outside a call (a server may ask only while it serves a client's call)"
            }
        return JSONRPCError(code: -32603, message: "The gateway cannot relay \(method): \(reason)")
    }
}

/// The upstream's requests being relayed at once; past ``limit`` more are refused, not queued, and past
/// ``perClientLimit`` those of one client: a client that never answers cannot take every slot from the others.
private final class RelayCount: Sendable {
    private struct Counts {
        var total = 0
        var perClient: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())
    static let limit = 32
    static let perClientLimit = 8

    /// Takes a slot for a request of `client` (``ServerRequestRelay/clientID``); the refusal when none is free.
    func acquire(for client: String?) -> JSONRPCError? {
        counts.withLock { counts -> JSONRPCError? in
            guard counts.total < Self.limit else { return .internalError("too many requests in flight") }
            if let client {
                guard counts.perClient[client, default: 0] < Self.perClientLimit else {
                    return .internalError(
                        "\(Self.perClientLimit) requests of this server already wait for this client's answers"
                    )
                }
                counts.perClient[client, default: 0] += 1
            }
            counts.total += 1
            return nil
        }
    }

    func release(for client: String?) {
        counts.withLock { counts in
            counts.total -= 1
            guard let client else { return }
            counts.perClient[client, default: 1] -= 1
            if counts.perClient[client] == 0 { counts.perClient[client] = nil }
        }
    }
}

/// Holds the channel for the reader thread, which exists before the channel is fully opened.
private final class ChannelSlot: Sendable {
    private let channel = Mutex<(any UpstreamChannel)?>(nil)

    func set(_ value: any UpstreamChannel) { channel.withLock { $0 = value } }
    func get() -> (any UpstreamChannel)? { channel.withLock { $0 } }
}
