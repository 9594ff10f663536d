import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `subscriptions/listen` over HTTP: one SSE stream per subscription. The acknowledgement comes first, then
/// only the kinds of change honoured, each stamped with the subscription's id, keep-alive comments while
/// nothing happens, and the listen request's result when the gateway stops.
extension MCPEndpoint {
    func listen(_ call: JSONRPCRequest, client: ClientKey?, caller: Caller) -> HTTPResponse {
        let session: DownstreamSession
        do {
            session = try gateway.openSubscription(call, scope: scope, client: client, caller: caller)
        } catch {
            let response = JSONRPCResponse(id: call.id, error: error)
            return FrontResponses.jsonRPC(Self.status(of: response), .response(response))
        }
        let messages = session.openNotificationStream()
        let sessions = gateway.sessions
        let gateway = self.gateway
        let heartbeat = min(Self.heartbeatInterval, sessions.idleTimeout / 3)
        return HTTPResponse(
            status: 200,
            headers: SSE.headers,
            body: .stream { writer in
                defer { _ = sessions.end(session.id) }
                let followed = await gateway.follow(ListenSubscription.requestedResources(call), for: session)
                let subscription = ListenSubscription(call, followed: followed)
                do { try await writer.write(SSE.event(subscription.acknowledgement)) } catch { return }
                // A graceful end says the listen request's result, whichever stops first at shutdown: the HTTP
                // server (closing words) or the engine ending the session (`last`).
                writer.setClosingWords(SSE.event(subscription.end))
                await Self.relay(
                    messages,
                    of: session,
                    to: writer,
                    heartbeat: heartbeat,
                    last: subscription.end,
                    frame: subscription.frame
                )
            }
        )
    }
}
