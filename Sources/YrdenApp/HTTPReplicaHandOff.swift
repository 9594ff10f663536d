import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import YrdenFront
import YrdenHTTPServer

/// Hands a retry of a parked call to the replica that holds it, over HTTP, and relays the answer as it comes
/// (a JSON body, or the SSE stream a call with progress answers on).
///
/// The request goes as the client sent it, its credential included (the holder checks it as for any request,
/// and the call's token is bound to it), marked handed off so the holder never hands it on. Reaching the
/// holder is bounded (the client's connect timeout); an answer is bounded by what a parked call may take.
struct HTTPReplicaHandOff: ReplicaHandOff {
    let client: HTTPClient
    let logger: Logger
    /// The longest a handed-off retry may take, as for any call.
    static let deadline: TimeAmount = .minutes(10)
    /// Hop-by-hop and framing headers, which each hop sets for itself.
    static let notForwarded: Set<String> = [
        "host", "content-length", "connection", "transfer-encoding", "keep-alive", "te", "upgrade",
        "proxy-connection", "trailer",
    ]

    func handOff(_ request: HTTPRequest, to replica: String) async -> HTTPResponse? {
        var outgoing = HTTPClientRequest(url: replica + request.path)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers where !Self.notForwarded.contains(name.lowercased()) {
            outgoing.headers.add(name: name, value: value)
        }
        outgoing.headers.add(name: MCPEndpoint.handedOffHeader, value: "1")
        outgoing.body = .bytes(ByteBuffer(bytes: request.body))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, timeout: Self.deadline)
        } catch {
            logger.warning(
                "could not hand a retry to its replica",
                metadata: ["replica": "\(replica)", "reason": "\(error)"]
            )
            return nil
        }
        var headers: YrdenHTTPServer.HTTPHeaders = []
        for (name, value) in response.headers where !Self.notForwarded.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        let body = response.body
        return HTTPResponse(
            status: Int(response.status.code),
            headers: headers,
            body: .stream { writer in
                do {
                    for try await chunk in body { try await writer.write(Array(buffer: chunk)) }
                } catch {
                    // The client or the holder went away: the answer ends here.
                }
            }
        )
    }
}
