import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `subscriptions/listen`: one SSE stream per subscription. The acknowledgement comes first with the kinds
/// honoured, then only those kinds of change, each stamped with the subscription's id, keep-alive comments
/// while nothing happens, and the listen request's result when the gateway ends the stream (shutdown).
extension MCPEndpoint {
    /// The filter fields the gateway honours, with the notification each lets through. Resource
    /// subscriptions are not honoured yet (the gateway does not relay `resources/updated`).
    static let listenKinds: [(field: String, method: String)] = [
        ("toolsListChanged", MCPMethod.toolsListChanged),
        ("promptsListChanged", MCPMethod.promptsListChanged),
        ("resourcesListChanged", MCPMethod.resourcesListChanged),
    ]

    func listen(_ call: JSONRPCRequest) -> HTTPResponse {
        let session: DownstreamSession
        do {
            session = try gateway.openSubscription(call)
        } catch {
            let response = JSONRPCResponse(id: call.id, error: error)
            return FrontResponses.jsonRPC(Self.status(of: response), .response(response))
        }
        let requested = call.params?["notifications"]?.objectValue ?? [:]
        let kinds = Self.listenKinds.filter { requested[$0.field]?.boolValue == true }
        let wanted = Set(kinds.map(\.method))
        let subscriptionID = call.id.json
        var honored = JSONObject()
        for kind in kinds { honored[kind.field] = true }
        let acknowledgement = JSONRPCNotification(
            method: MCPMethod.subscriptionsAcknowledged,
            params: ["notifications": .object(honored), "_meta": [ModernEnvelope.subscriptionIDKey: subscriptionID]]
        )
        let end = JSONRPCResponse(
            id: call.id,
            result: ["resultType": "complete", "_meta": [ModernEnvelope.subscriptionIDKey: subscriptionID]]
        )
        let messages = session.openNotificationStream()
        let sessions = gateway.sessions
        let heartbeat = min(Self.heartbeatInterval, sessions.idleTimeout / 3)
        return HTTPResponse(
            status: 200,
            headers: SSE.headers,
            body: .stream { writer in
                defer { _ = sessions.end(session.id) }
                do { try await writer.write(SSE.event(.notification(acknowledgement))) } catch { return }
                // A graceful end says the listen request's result, whichever stops first at shutdown: the HTTP
                // server (closing words) or the engine ending the session (`last`).
                writer.setClosingWords(SSE.event(.response(end)))
                await Self.relay(messages, of: session, to: writer, heartbeat: heartbeat, last: .response(end)) {
                    guard case .notification(let change) = $0, wanted.contains(change.method) else { return nil }
                    return .notification(Self.stamped(change, subscriptionID: subscriptionID))
                }
            }
        )
    }

    /// `change` with the subscription's id in its `_meta`, as every frame of a listen stream carries it.
    static func stamped(_ change: JSONRPCNotification, subscriptionID: JSONValue) -> JSONRPCNotification {
        var params = change.params?.objectValue ?? [:]
        var meta = params["_meta"]?.objectValue ?? [:]
        meta[ModernEnvelope.subscriptionIDKey] = subscriptionID
        params["_meta"] = .object(meta)
        return JSONRPCNotification(method: change.method, params: .object(params))
    }
}
