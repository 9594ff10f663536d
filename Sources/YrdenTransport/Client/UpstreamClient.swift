import Synchronization
import YrdenProtocol

/// The gateway as an MCP client of one upstream, over any ``UpstreamChannel``.
///
/// It mints its own request ids (so ids of different downstream sessions never meet upstream), correlates
/// answers, enforces deadlines, relays progress to the request that asked for it, answers the upstream's
/// `ping` itself, and fails everything in flight the moment the channel closes.
package final class UpstreamClient: Sendable {
    private let channel: any UpstreamChannel
    private let pending: PendingRequests
    private let nextID = Atomic<Int>(1)
    /// Notifications (bounded, list changes coalesced) and the final `closed`.
    package let events: UpstreamEvents

    /// Opens the channel with `open`, wiring its inbound side to this client.
    package init(
        open: (UpstreamChannelHandler) throws(UpstreamError) -> any UpstreamChannel,
        log: @escaping @Sendable (String) -> Void
    )
        throws(UpstreamError)
    {
        let pending = PendingRequests()
        let events = UpstreamEvents(log: log)
        let replies = ChannelSlot()
        let handler = UpstreamChannelHandler(
            frame: { frame in
                Self.receive(frame, pending: pending, events: events, replyChannel: replies, log: log)
            },
            requestFailed: { id, error in
                if case .int(let id) = id { pending.fail(id, with: error) }
            },
            closed: { error in
                pending.failAll(with: error)
                events.finish(error)
            },
            log: log
        )
        let channel = try open(handler)
        replies.set(channel)
        self.channel = channel
        self.pending = pending
        self.events = events
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
        if options.onProgress != nil {
            var object = params?.objectValue ?? [:]
            var meta = object["_meta"]?.objectValue ?? [:]
            meta["progressToken"] = .int(id)
            object["_meta"] = .object(meta)
            params = .object(object)
        }
        let frame = JSONRPCMessage.request(JSONRPCRequest(id: .int(id), method: method, params: params)).serialized()
        let now = ContinuousClock.now
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let entry = PendingRequests.Entry(
                        continuation: continuation,
                        deadline: now + options.timeout,
                        hardDeadline: now + max(options.timeout, options.maxTotalTimeout),
                        extendBy: options.timeout,
                        onProgress: options.onProgress
                    )
                    pending.register(id, entry)
                    // Cancelled before it was registered: the cancellation handler found nothing to fail,
                    // and a request nobody waits for is not sent at all.
                    if Task.isCancelled {
                        pending.fail(id, with: UpstreamError(.cancelled, "request cancelled: the client went away"))
                        return
                    }
                    do throws(UpstreamError) {
                        try channel.send(frame)
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

    /// Sends a notification; failures are the channel's to report.
    package func notify(_ method: String, params: JSONValue? = nil) {
        let frame = JSONRPCMessage.notification(JSONRPCNotification(method: method, params: params)).serialized()
        try? channel.send(frame)
    }

    /// Stops waiting for request `id` and tells the upstream, as the spec's cancellation says.
    private func cancel(_ id: Int, reason: String) {
        guard pending.fail(id, with: UpstreamError(.cancelled, "request cancelled: \(reason)")) else { return }
        notify(MCPMethod.cancelled, params: ["requestId": .int(id), "reason": .string(reason)])
    }

    /// Fails the requests whose deadline passed and tells the upstream to stop them. Call it periodically.
    package func expireOverdueRequests(now: ContinuousClock.Instant = .now) {
        for (id, timeout) in pending.expired(at: now) {
            let error = UpstreamError(
                .timeout,
                "timed out: the server did not answer within \(timeout.components.seconds) s; the request was cancelled"
            )
            if pending.fail(id, with: error) {
                notify(MCPMethod.cancelled, params: ["requestId": .int(id), "reason": "timeout"])
            }
        }
    }

    /// Closes the channel (for a child process: the full stop sequence) and fails anything still in flight.
    package func close() async {
        let error = UpstreamError(.notConnected, "the connection was closed")
        pending.failAll(with: error)
        await channel.close()
        // A channel closed from this side does not report it; whoever follows `events` still must hear the end.
        events.finish(error)
    }

    /// Runs on the channel's reader thread: decode, then resolve or publish, never wait.
    private static func receive(
        _ frame: [UInt8],
        pending: PendingRequests,
        events: UpstreamEvents,
        replyChannel: ChannelSlot,
        log: @Sendable (String) -> Void
    ) {
        let message: JSONRPCMessage
        do {
            message = try JSONRPCMessage(try JSONValue.parse(frame))
        } catch {
            log("ignored a message that is not JSON-RPC: \(error)")
            return
        }
        switch message {
        case .response(let response):
            guard case .int(let id) = response.id else { return }
            pending.resolve(id, with: response.outcome)
        case .notification(let notification):
            if notification.method == MCPMethod.progress {
                // Progress belongs to a request of ours or to nobody; it never queues as an event.
                if let params = notification.params, let token = params["progressToken"]?.intValue {
                    pending.progress(token, params: params, now: .now)
                }
            } else {
                events.yield(notification)
            }
        case .request(let request):
            // The gateway declares no client capabilities upstream (no sampling, roots or elicitation yet),
            // so only ping is expected; anything else gets an honest "not supported".
            let reply: JSONRPCResponse =
                request.method == MCPMethod.ping
                ? JSONRPCResponse(id: request.id, result: [:])
                : JSONRPCResponse(id: request.id, error: .methodNotFound(request.method))
            let channel = replyChannel.get()
            try? channel?.send(JSONRPCMessage.response(reply).serialized())
        }
    }
}

/// Holds the channel for the reader thread, which exists before the channel is fully opened.
private final class ChannelSlot: Sendable {
    private let channel = Mutex<(any UpstreamChannel)?>(nil)

    func set(_ value: any UpstreamChannel) { channel.withLock { $0 = value } }
    func get() -> (any UpstreamChannel)? { channel.withLock { $0 } }
}
