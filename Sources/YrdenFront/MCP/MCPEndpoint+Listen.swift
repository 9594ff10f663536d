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
                // The HTTP server stops streams before the engine ends sessions: either way the stream ends
                // with the listen request's result.
                writer.setClosingWords(SSE.event(.response(end)))
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await message in messages {
                            guard case .notification(let change) = message, wanted.contains(change.method) else {
                                continue
                            }
                            let stamped = Self.stamped(change, subscriptionID: subscriptionID)
                            do { try await writer.write(SSE.event(.notification(stamped))) } catch { return }
                        }
                        // The gateway ended the session (it is stopping): a graceful end, said with the result.
                        try? await writer.write(SSE.event(.response(end)))
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: heartbeat)
                            do { try await writer.write(SSE.heartbeat) } catch { return }
                            session.touch()
                        }
                    }
                    await group.next()
                    group.cancelAll()
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
