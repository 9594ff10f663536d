import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// The deprecated HTTP+SSE transport (MCP 2024-11-05), for hosts that speak nothing newer: `GET /sse` opens a
/// stream whose first event names where to POST (`/messages?sessionId=…`); each POSTed message is answered
/// 202 at once, and its response, like everything else for the client, comes as an event on the stream.
/// Served for the aggregate and for each server alone (`/servers/{id}/sse`), under `/mcp`'s access rules.
///
/// The stream is the connection: the messages go to a ``MessageConnection``, as a stdio client's lines do,
/// and the session ends when the stream does. A client that does not read its stream is cut off once
/// `maxWaitingEvents` events or `maxWaitingBytes` bytes of them wait for it, rather than held in memory.
struct LegacySSEEndpoint: Sendable {
    let gateway: Gateway
    let channels: LegacySSEChannels
    static let maxWaitingEvents = 1024
    static let maxWaitingBytes = 8 << 20

    /// `GET …/sse`: the stream. `base` is the path the messages endpoint hangs from (`""`, `/mcp/{profile}` or
    /// `/servers/{id}`); the stream takes POSTs on that path only.
    func openStream(_ request: HTTPRequest, base: String, scope: CatalogScope, caller: Caller) -> HTTPResponse {
        guard request.method == "GET" else { return FrontResponses.methodNotAllowed("GET") }
        guard MediaTypeRules.acceptsStream(request.headers["Accept"]) else {
            return MCPEndpoint.notAcceptable("Accept must list text/event-stream")
        }
        let client = request.clientKey(for: caller)
        guard let (id, messages) = channels.openChannel(base: base, client: client, caller: caller) else {
            guard channels.isFull(for: client) else {
                return HTTPResponse.text(503, "too many open streams (\(channels.limit)); close one and try again\n")
            }
            return HTTPResponse.text(
                503,
                "too many open streams of this client (\(channels.perClientLimit), gateway.maxSessionsPerClient); "
                    + "close one and try again\n"
            )
        }
        let gateway = self.gateway
        let channels = self.channels
        return HTTPResponse(
            status: 200,
            headers: SSE.headers,
            body: .stream { writer in
                defer { channels.close(id) }
                guard (try? await writer.write("event: endpoint\ndata: \(base)/messages?sessionId=\(id)\n\n")) != nil
                else { return }
                // Events wait as their bytes, counted: a client that does not read is cut off at either bound.
                let (events, feed) = AsyncStream.makeStream(
                    of: [UInt8].self,
                    bufferingPolicy: .bufferingOldest(Self.maxWaitingEvents)
                )
                let waiting = QueuedEventBytes(limit: Self.maxWaitingBytes)
                let connection = MessageConnection(gateway: gateway, scope: scope, client: client, caller: caller) {
                    message in
                    let event = SSE.event(message)
                    guard waiting.add(event.count) else { return channels.close(id) }
                    if case .dropped = feed.yield(event) { channels.close(id) }
                }
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        await connection.serve(messages)
                        feed.finish()
                    }
                    group.addTask {
                        for await event in events {
                            do { try await writer.write(event) } catch { break }
                            waiting.remove(event.count)
                        }
                        channels.close(id)
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: MCPEndpoint.heartbeatInterval)
                            do { try await writer.write(SSE.heartbeat) } catch { break }
                        }
                        channels.close(id)
                    }
                    // Whichever ends first (the client gone, or the connection over) ends the others: the
                    // session's requests still running are cancelled with it.
                    await group.next()
                    channels.close(id)
                    group.cancelAll()
                }
            }
        )
    }

    /// `POST …/messages?sessionId=…`: one JSON-RPC message for that stream's connection, answered 202, when
    /// the stream was opened under the same `base` by the same principal as `caller`. Its `traceparent` and
    /// `tracestate` headers go with it, for a message that carries no trace context in `_meta`.
    func post(_ request: HTTPRequest, base: String, caller: Caller) -> HTTPResponse {
        guard request.method == "POST" else { return FrontResponses.methodNotAllowed("POST") }
        guard MediaTypeRules.isJSON(request.headers["Content-Type"]) else {
            return FrontResponses.rpcError(415, .invalidRequest("Unsupported Media Type: send application/json"))
        }
        guard let id = request.query["sessionId"], !id.isEmpty else {
            return FrontResponses.rpcError(400, .invalidRequest("missing sessionId; GET the sse endpoint first"))
        }
        let traceHeaders = TraceHeaders(request, gateway: gateway)
        switch channels.deliver(request.body, to: id, base: base, caller: caller, traceHeaders: traceHeaders) {
        case .accepted:
            return HTTPResponse.text(202, "Accepted\n")
        case .unknown:
            return FrontResponses.rpcError(
                404,
                JSONRPCError(code: -32001, message: "Session not found; open the stream again")
            )
        case .full:
            return FrontResponses.rpcError(
                429,
                JSONRPCError(code: -32000, message: "too many messages waiting; wait for the answers on the stream")
            )
        }
    }
}
