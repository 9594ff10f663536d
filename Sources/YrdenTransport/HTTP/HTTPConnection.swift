import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization
import YrdenProtocol

/// The state and the I/O behind one ``StreamableHTTPChannel``.
///
/// One task (`run`) takes work from the channel's outbox and runs each POST, and the GET stream, as a child
/// task, so a long tool call never holds up anything else. The session id and the negotiated version are
/// learnt from the traffic itself: the id from the `initialize` response's header, the version from its result.
final class HTTPConnection: Sendable {
    enum Work: Sendable {
        case post(OutboundFrame)
        /// Open the GET stream (queued once `notifications/initialized` was accepted).
        case listen
    }

    private struct State {
        var sessionID: String?
        var protocolVersion: String?
        var listening = false
        var closing = false
    }

    let endpoint: StreamableHTTPEndpoint
    let client: HTTPClient
    let handler: UpstreamChannelHandler
    private let outbox: AsyncStream<Work>.Continuation
    private let state = Mutex(State())
    private let closedOnce = OnceFlag()

    /// A JSON body larger than this is refused (an SSE event has the same bound in its parser).
    static let maxBodyBytes = 64 << 20
    static let sessionHeader = "Mcp-Session-Id"
    static let versionHeader = "MCP-Protocol-Version"

    init(
        endpoint: StreamableHTTPEndpoint,
        client: HTTPClient,
        handler: UpstreamChannelHandler,
        outbox: AsyncStream<Work>.Continuation
    ) {
        self.endpoint = endpoint
        self.client = client
        self.handler = handler
        self.outbox = outbox
    }

    var isClosing: Bool { state.withLock { $0.closing } }

    func beginClosing() { state.withLock { $0.closing = true } }

    /// Runs until the outbox ends or the task is cancelled; cancellation reaches every request in flight.
    func run(_ work: AsyncStream<Work>) async {
        await withDiscardingTaskGroup { group in
            for await item in work {
                switch item {
                case .post(let frame) where frame.method == MCPMethod.initialized:
                    // Inline, so no request overtakes it: the server must see it before what follows.
                    await post(frame)
                case .post(let frame):
                    group.addTask { await self.post(frame) }
                case .listen:
                    group.addTask { await self.listen() }
                }
            }
            group.cancelAll()
        }
    }

    /// The DELETE that tells the server the session is over; best effort, bounded, errors ignored.
    func endSession() async {
        guard let sessionID = state.withLock({ $0.sessionID }) else { return }
        var request = makeRequest(method: .DELETE, accept: nil)
        request.headers.replaceOrAdd(name: Self.sessionHeader, value: sessionID)
        _ = try? await client.execute(request, deadline: .now() + .seconds(2))
    }

    // MARK: - POST

    private func post(_ frame: OutboundFrame) async {
        var request = makeRequest(method: .POST, accept: "application/json, text/event-stream")
        request.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        request.body = .bytes(frame.bytes)
        let sentSession = request.headers.first(name: Self.sessionHeader) != nil
        let response: HTTPClientResponse
        do {
            response = try await client.execute(
                request,
                deadline: .now() + Self.timeAmount(endpoint.postDeadline(for: frame.method))
            )
        } catch {
            fail(frame, "the HTTP request to the server failed: \(error)")
            return
        }
        let status = Int(response.status.code)
        if frame.method == MCPMethod.initialize { captureSession(from: response) }
        if status == 404 && sentSession {
            reportClosed(
                UpstreamError(.http, "the server ended the session (HTTP 404): session expired", httpStatus: 404)
            )
            return
        }
        guard (200..<300).contains(status) else {
            let detail = await Self.errorDetail(response)
            fail(
                frame,
                "the server answered HTTP \(status) \(response.status.reasonPhrase)\(detail)",
                httpStatus: status
            )
            return
        }
        if frame.method == MCPMethod.initialized { openListenStreamOnce() }
        let contentType = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
        var answered = false
        do {
            if contentType.hasPrefix("text/event-stream") {
                var parser = SSEParser(maxEventBytes: Self.maxBodyBytes)
                for try await buffer in response.body {
                    parser.feed(buffer.readableBytesView) { event in
                        if deliver(event.data, answering: frame) { answered = true }
                    }
                }
            } else if contentType.hasPrefix("application/json") {
                let body = try await response.body.collect(upTo: Self.maxBodyBytes)
                answered = deliver(Array(body.readableBytesView), answering: frame)
            } else {
                // 202 Accepted, or any other body we cannot read: drain it so the connection is reused.
                for try await _ in response.body {}
            }
        } catch {
            fail(frame, "the server's response broke off: \(error)")
            return
        }
        if frame.isRequest && !answered {
            fail(frame, "the server answered HTTP \(status) without a response to the request")
        }
    }

    /// Hands every message in `bytes` (one message or a batch) to the handler; true when one of them is the
    /// response to `frame`.
    private func deliver(_ bytes: [UInt8], answering frame: OutboundFrame) -> Bool {
        guard !isClosing, bytes.contains(where: { !Self.isJSONWhitespace($0) }) else { return false }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            handler.log("ignored a message from the server that is not JSON: \(error)")
            return false
        }
        guard case .array(let messages) = value else {
            let answers = answers(value, frame)
            handler.frame(bytes)
            return answers
        }
        var answered = false
        for message in messages {
            if answers(message, frame) { answered = true }
            handler.frame(message.serialized())
        }
        return answered
    }

    /// Whether `message` is the response to `frame`; learns the negotiated version from `initialize`'s.
    private func answers(_ message: JSONValue, _ frame: OutboundFrame) -> Bool {
        guard let id = frame.id, message["method"] == nil, let messageID = message["id"],
            JSONRPCID(messageID) == id
        else { return false }
        if frame.method == MCPMethod.initialize, let version = message["result"]?["protocolVersion"]?.stringValue {
            state.withLock { $0.protocolVersion = version }
        }
        return true
    }

    /// Answers a request whose POST failed with a JSON-RPC error, so its caller fails at once while the
    /// channel lives on. Notifications and responses have no one to tell: the failure is logged.
    private func fail(_ frame: OutboundFrame, _ message: String, httpStatus: Int? = nil) {
        guard !isClosing, !Task.isCancelled else { return }
        guard let id = frame.id else {
            handler.log("could not deliver \(frame.method ?? "a response") to the server: \(message)")
            return
        }
        var data: JSONObject = [:]
        if let httpStatus { data["httpStatus"] = .int(httpStatus) }
        let error = JSONRPCError(code: -32603, message: message, data: data.isEmpty ? nil : .object(data))
        handler.frame(JSONRPCMessage.response(JSONRPCResponse(id: id, error: error)).serialized())
    }

    func reportClosed(_ error: UpstreamError) {
        guard !isClosing, closedOnce.set() else { return }
        handler.closed(error)
    }

    private func captureSession(from response: HTTPClientResponse) {
        guard let sessionID = response.headers.first(name: Self.sessionHeader) else { return }
        // Visible ASCII only (spec); anything else could smuggle header syntax, so it is not echoed back.
        guard !sessionID.isEmpty, sessionID.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            handler.log("ignored a session id that is not visible ASCII")
            return
        }
        state.withLock { $0.sessionID = sessionID }
    }

    private func openListenStreamOnce() {
        let first = state.withLock { state in
            defer { state.listening = true }
            return !state.listening
        }
        if first { outbox.yield(.listen) }
    }

    // MARK: - Requests

    /// A request to the endpoint with the configured headers, then the session and version headers.
    func makeRequest(method: HTTPMethod, accept: String?) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: endpoint.url)
        request.method = method
        for (name, value) in endpoint.headers { request.headers.replaceOrAdd(name: name, value: value) }
        if let accept { request.headers.replaceOrAdd(name: "Accept", value: accept) }
        let (sessionID, version) = state.withLock { ($0.sessionID, $0.protocolVersion) }
        if let sessionID { request.headers.replaceOrAdd(name: Self.sessionHeader, value: sessionID) }
        if let version { request.headers.replaceOrAdd(name: Self.versionHeader, value: version) }
        return request
    }

    /// `: <message>` from a JSON-RPC error body, if the server sent one (bounded; never the headers).
    private static func errorDetail(_ response: HTTPClientResponse) async -> String {
        guard let body = try? await response.body.collect(upTo: 64 * 1024),
            let message = (try? JSONValue.parse(Array(body.readableBytesView)))?["error"]?["message"]?.stringValue
        else { return "" }
        return ": \(message.prefix(300))"
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
