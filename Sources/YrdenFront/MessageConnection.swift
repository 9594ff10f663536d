import YrdenEngine
import YrdenLineIO
import YrdenProtocol

/// One client over a channel of whole messages, its requests in and everything for it out: the stdio pipe
/// (`yrden stdio`), or a legacy HTTP+SSE stream with its POSTs. Holds the session once initialized.
struct MessageConnection: Sendable {
    let gateway: Gateway
    /// What the client sees: the aggregate, or one server alone.
    let scope: CatalogScope
    /// Who the client is, for the per-client session bound: the legacy stream's requester; `nil` over stdio,
    /// whose pipe has one client.
    let client: ClientKey?
    /// Whom its requests act for: the legacy stream's opener; ``Caller/local`` over stdio.
    let caller: Caller
    let output: @Sendable (JSONRPCMessage) -> Void
    /// Told of the session once `initialize` opened it: a WebSocket keeps it in use while its client answers pings.
    var sessionOpened: (@Sendable (DownstreamSession) -> Void)?

    init(
        gateway: Gateway,
        scope: CatalogScope = .gateway,
        client: ClientKey? = nil,
        caller: Caller = .local,
        output: @escaping @Sendable (JSONRPCMessage) -> Void
    ) {
        self.gateway = gateway
        self.scope = scope
        self.client = client
        self.caller = caller
        self.output = output
    }

    /// The answer to a line longer than the reader keeps: its id is unknown, as for unparseable JSON.
    static let oversized = JSONRPCError.invalidRequest(
        "message longer than \(LineReader.defaultMaxLineBytes) bytes dropped without being parsed; "
            + "send smaller messages"
    )

    /// Serves `lines` until they end. A message without trace context in `_meta` takes its line's
    /// ``ConnectionInput/traceHeaders`` (those of the HTTP request that brought it), as a single POST's does.
    func serve<Input: ConnectionInput>(
        _ lines: some AsyncSequence<Input, Never>,
        slots: RequestSlots = RequestSlots()
    ) async {
        var session: DownstreamSession?
        // 2026-07-28 requests carry no session: their calls are registered here, so a cancellation finds them.
        let stateless = gateway.statelessConnection(scope: scope)
        let listens = StdioListens()
        await withDiscardingTaskGroup { group in
            for await next in lines {
                guard case .line(let line) = next.input else {
                    output(.response(JSONRPCResponse(id: nil, error: Self.oversized)))
                    continue
                }
                let body: JSONRPCBody
                do throws(JSONRPCError) {
                    body = try JSONRPCBody.decode(line)
                } catch {
                    output(.response(JSONRPCResponse(id: nil, error: error)))
                    continue
                }
                guard case .single(var message, let rawID) = body else {
                    output(
                        .response(JSONRPCResponse(id: nil, error: .invalidRequest("batches are not served over stdio")))
                    )
                    continue
                }
                if let headers = next.traceHeaders { message = headers.carried(into: message, by: gateway) }
                switch gateway.receive(message, rawID: rawID, session: session) {
                case .answer(let response):
                    output(.response(response))
                case .initialize(let request):
                    let opened: DownstreamSession
                    let response: JSONRPCResponse
                    do throws(SessionLimitReached) {
                        // Awaited here, not in a task: the client sends nothing else before the answer.
                        (opened, response) = try await gateway.initialize(
                            request,
                            scope: scope,
                            client: client,
                            caller: caller
                        )
                    } catch {
                        output(.response(JSONRPCResponse(id: request.id, error: error.rpcError)))
                        continue
                    }
                    session = opened
                    sessionOpened?(opened)
                    output(.response(response))
                    let notifications = opened.openNotificationStream()
                    group.addTask { for await message in notifications { output(message) } }
                case .request(let request, let current):
                    let gateway = self.gateway
                    run(request.id, slots: slots, in: &group) {
                        gateway.admit(request, session: current)
                    } answer: {
                        await gateway.respond(to: $0, related: output)
                    }
                case .stateless(let request) where request.method == MCPMethod.subscriptionsListen:
                    listen(request, listens: listens, in: &group)
                case .stateless(let request):
                    // 2026-07-28 on stdio: each request stands alone, registered in the connection's own session.
                    let gateway = self.gateway
                    let caller = self.caller
                    run(request.id, slots: slots, in: &group) {
                        gateway.admitStateless(request, in: stateless, caller: caller)
                    } answer: {
                        await gateway.respondStateless(to: $0, related: output)
                    }
                case .needsSession(let id?):
                    output(.response(JSONRPCResponse(id: id, error: .invalidRequest("send initialize first"))))
                case .needsSession(nil):
                    // Before any `initialize`, a cancellation is of the stateless era: a listen or a call.
                    guard case .success(.notification(let notification)) = message,
                        notification.method == MCPMethod.cancelled,
                        let id = notification.params?["requestId"].flatMap(JSONRPCID.init)
                    else { continue }
                    if !listens.cancel(id, in: gateway.sessions) { gateway.handle(notification, session: stateless) }
                case .accepted:
                    continue
                }
            }
            if let current = session { _ = gateway.sessions.end(current.id) }
            listens.endAll(in: gateway.sessions)
        }
    }

    /// Runs one request in a slot: the busy error when none is free; otherwise `admit` registers it now,
    /// before the next line is read, so a cancellation that follows it finds it, and `answer` runs in a task
    /// of its own. A request the client cancelled (`nil`) gets no response at all, as MCP asks.
    private func run<Admitted: Sendable>(
        _ id: JSONRPCID,
        slots: RequestSlots,
        in group: inout DiscardingTaskGroup,
        admit: () -> Admitted,
        answer: @escaping @Sendable (Admitted) async -> JSONRPCResponse?
    ) {
        guard slots.take() else { return output(.response(JSONRPCResponse(id: id, error: slots.busy))) }
        let admitted = admit()
        group.addTask {
            if let response = await answer(admitted) { output(.response(response)) }
            slots.release()
        }
    }

    /// `subscriptions/listen` over stdio: the acknowledgement at once, then the kinds of change asked for,
    /// stamped with the subscription's id, until the client cancels it (nothing more is said), stdin closes,
    /// or the gateway stops (the listen result ends it).
    private func listen(
        _ request: JSONRPCRequest,
        listens: StdioListens,
        in group: inout DiscardingTaskGroup
    ) {
        let opened: DownstreamSession
        do {
            opened = try gateway.openSubscription(request, scope: scope, client: client, caller: caller)
        } catch {
            return output(.response(JSONRPCResponse(id: request.id, error: error)))
        }
        guard listens.add(request.id, session: opened) else {
            _ = gateway.sessions.end(opened.id)
            let error = JSONRPCError.invalidRequest("request id \(request.id) is already in flight")
            return output(.response(JSONRPCResponse(id: request.id, error: error)))
        }
        let messages = opened.openNotificationStream()
        let gateway = self.gateway
        group.addTask {
            let followed = await gateway.follow(ListenSubscription.requestedResources(request), for: opened)
            let subscription = ListenSubscription(request, followed: followed)
            output(subscription.acknowledgement)
            for await message in messages {
                if let framed = subscription.frame(message) { output(framed) }
            }
            if !listens.finish(request.id) { output(subscription.end) }
        }
    }
}
