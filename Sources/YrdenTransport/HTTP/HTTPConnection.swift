import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization
import YrdenExecution
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

    struct State {
        var sessionID: String?
        var protocolVersion: String?
        var listening = false
        var closing = false
        /// The `initialize` request as first sent, replayed when the server forgets the session.
        var initializeFrame: OutboundFrame?
        /// The renewal under way, shared by every request that met the expired session.
        var renewal: Task<Bool, Never>?
        /// 2026-07-28 requests in flight, each a task of its own: closing its stream is how one is cancelled.
        var modernRequests: [JSONRPCID: Task<Void, Never>] = [:]
        /// The 2026-07-28 listen stream held open; a new one replaces it.
        var listenID: JSONRPCID?
    }

    let endpoint: StreamableHTTPEndpoint
    let client: HTTPClient
    let handler: UpstreamChannelHandler
    private let outbox: AsyncStream<Work>.Continuation
    let state = Mutex(State())
    /// The origin's pool and the request target on it; `nil` sends every request through `client`.
    let route: (pool: UpstreamHTTPPool, requestTarget: String)?
    private let closedOnce = OnceFlag()
    private let replies: ReplyBudget

    /// A JSON body larger than this is refused (an SSE event has the same bound in its parser).
    static let maxBodyBytes = 64 << 20
    static let sessionHeader = "Mcp-Session-Id"
    static let versionHeader = "MCP-Protocol-Version"

    init(
        endpoint: StreamableHTTPEndpoint,
        client: HTTPClient,
        pools: UpstreamHTTPPools?,
        handler: UpstreamChannelHandler,
        outbox: AsyncStream<Work>.Continuation
    ) {
        self.endpoint = endpoint
        self.client = client
        route = UpstreamOrigin.parse(endpoint.url).flatMap { origin, requestTarget in
            pools?.pool(for: origin).map { (pool: $0, requestTarget: requestTarget) }
        }
        self.handler = handler
        self.outbox = outbox
        self.replies = ReplyBudget(log: handler.log)
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
                case .post(let frame) where frame.modernVersion != nil && frame.isRequest:
                    startModern(frame)
                case .post(let frame) where frame.cancels.map(cancelModern) == true:
                    // 2026-07-28 over HTTP: closing the request's stream is the cancellation; nothing is sent.
                    continue
                case .post(let frame) where ReplyBudget.isReply(frame):
                    guard replies.tryAcquire() else { continue }
                    group.addTask {
                        await self.post(frame)
                        self.replies.release()
                    }
                case .post(let frame):
                    // Inline where its answer arrives, when the pool hands it over there (``PooledExchange``).
                    group.addTask(executorPreference: InlineExecutor.shared) { await self.post(frame) }
                case .listen:
                    group.addTask { await self.listen() }
                }
            }
            group.cancelAll()
            let modern = state.withLock { state in
                defer { state.modernRequests.removeAll() }
                return Array(state.modernRequests.values)
            }
            modern.forEach { $0.cancel() }
        }
    }

    // MARK: - POST

    /// What one POST came to.
    private enum PostOutcome {
        case done
        /// The server no longer knows the session this POST carried: it did not process the message.
        case sessionExpired(String)
        /// The server refused the credential, and the authorizer has another one to try.
        case reauthorized
        case failed(UpstreamError, retryable: Bool)
    }

    /// Delivers one frame, retrying where that is safe: a network error or a 5xx for an idempotent request,
    /// with backoff; any message the server refused because its session expired (it was not processed),
    /// once the session is renewed. A 4xx is final, and a tool call whose POST went out is never repeated.
    func post(_ frame: OutboundFrame) async {
        var attempt = 0
        var renewed = false
        var reauthorized = false
        while !Task.isCancelled {
            attempt += 1
            switch await postOnce(frame, mayReauthorize: !reauthorized) {
            case .done:
                return
            case .reauthorized:
                reauthorized = true
            case .sessionExpired(let expired) where !renewed && frame.method != MCPMethod.initialize:
                renewed = true
                guard await renewSession(after: expired) else { return }
            case .sessionExpired:
                fail(frame, UpstreamError(.http, "the server ended the session (HTTP 404) again", httpStatus: 404))
                return
            case .failed(let error, let retryable):
                guard retryable, frame.isIdempotent, attempt <= Self.retryDelays.count else {
                    fail(frame, error)
                    return
                }
                try? await Task.sleep(for: Self.retryDelays[attempt - 1])
            }
        }
    }

    /// Waits before each retry of an idempotent request: three retries within about two seconds.
    static let retryDelays: [Duration] = [.milliseconds(100), .milliseconds(400), .milliseconds(1500)]

    private func postOnce(_ frame: OutboundFrame, mayReauthorize: Bool) async -> PostOutcome {
        var request = makeRequest(method: .POST, accept: "application/json, text/event-stream", for: frame)
        request.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        request.body = frame.bytes
        let sentSession = request.headers.first(name: Self.sessionHeader)
        let credential: String?
        do {
            // A caller's own credential goes as it is: a refusal of it is the caller's, not the server's sign-in.
            credential = frame.carriesCredential ? nil : try await authorize(&request)
        } catch {
            return .failed(error, retryable: false)
        }
        let response: UpstreamResponse
        // A plain answer (2xx JSON) to anything but the handshake is handed over as it arrives.
        var onArrival: (@Sendable ([UInt8]) -> Bool)?
        if frame.method != MCPMethod.initialize && frame.method != MCPMethod.initialized {
            onArrival = { @Sendable bytes in self.deliver(bytes, answering: frame) }
        }
        do {
            response = try await execute(
                request,
                deadline: .now() + Self.timeAmount(endpoint.postDeadline(for: frame.method)),
                onArrival: onArrival
            )
        } catch {
            return .failed(Self.networkError(error), retryable: true)
        }
        let status = Int(response.status.code)
        if let answered = response.answeredOnArrival {
            return frame.isRequest && !answered ? .failed(Self.unanswered(status), retryable: false) : .done
        }
        if frame.method == MCPMethod.initialize {
            captureSession(from: response)
            state.withLock { $0.initializeFrame = frame }
        }
        if status == 404, let sentSession {
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return .sessionExpired(sentSession)
        }
        if mayReauthorize, await reauthorize(after: response, credential: credential) {
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return .reauthorized
        }
        if frame.modernVersion != nil || frame.method == MCPMethod.initialize, Self.mayCarryAnswer(status) {
            // 2026-07-28 answers a request it refuses with a 4xx and the JSON-RPC error: that is the answer. Of
            // a handshake-era `initialize` only its -32022 is (a 2026-07-28-only server naming its era); any
            // other 4xx there still means "try the legacy transport", with the server's reason.
            let body = await Self.boundedBody(response)
            guard Self.isErrorAnswer(body, of: response, onlyCode: frame.modernVersion == nil ? -32022 : nil) else {
                return .failed(Self.statusError(response, body: body), retryable: false)
            }
            return deliver(body, answering: frame) ? .done : .failed(Self.statusFailure(status), retryable: false)
        }
        guard (200..<300).contains(status) else {
            let error = await Self.statusError(response)
            return .failed(error, retryable: status >= 500)
        }
        if frame.method == MCPMethod.initialized { openListenStreamOnce() }
        var answered = false
        do {
            answered = try await readMessages(response) { deliver($0, answering: frame) }
        } catch {
            return .failed(UpstreamError(.network, "the server's response broke off: \(error)"), retryable: true)
        }
        if frame.isRequest && !answered { return .failed(Self.unanswered(status), retryable: false) }
        return .done
    }

    static func unanswered(_ status: Int) -> UpstreamError {
        UpstreamError(
            .protocol,
            "the server answered HTTP \(status) without a response to the request",
            httpStatus: status
        )
    }

    /// Reads a POST's answer, JSON or an SSE stream, handing each message to `receive` as it arrives; true when
    /// `receive` said one of them was the answer it waited for.
    func readMessages(
        _ response: UpstreamResponse,
        _ receive: ([UInt8]) -> Bool
    ) async throws -> Bool {
        let contentType = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
        var answered = false
        if contentType.hasPrefix("text/event-stream") {
            var parser = SSEParser(maxEventBytes: Self.maxBodyBytes)
            for try await buffer in response.body {
                parser.feed(buffer.readableBytesView) { event in
                    if receive(event.data) { answered = true }
                }
            }
        } else if contentType.hasPrefix("application/json") {
            let body = try await response.body.collect(upTo: Self.maxBodyBytes)
            answered = receive(Array(body.readableBytesView))
        } else {
            // 202 Accepted, or any other body we cannot read: drain it so the connection is reused.
            for try await _ in response.body {}
        }
        return answered
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
            hand(bytes, with: frame)
            return answers
        }
        var answered = false
        for message in messages {
            if answers(message, frame) { answered = true }
            hand(message.serialized(), with: frame)
        }
        return answered
    }

    /// Passes on a message that came in the answer to `frame`, saying so when `frame` is a request.
    private func hand(_ bytes: [UInt8], with frame: OutboundFrame) {
        if let id = frame.id { handler.relatedFrame(bytes, id) } else { handler.frame(bytes) }
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

    /// Fails a request whose POST failed, so its caller learns the transport's reason at once while the
    /// channel lives on. Notifications and responses have no one to tell: the failure is logged.
    func fail(_ frame: OutboundFrame, _ error: UpstreamError) {
        guard !isClosing, !Task.isCancelled else { return }
        guard let id = frame.id else {
            handler.log("could not deliver \(frame.method ?? "a response") to the server: \(error.message)")
            return
        }
        handler.requestFailed(id, error)
    }

    func reportClosed(_ error: UpstreamError) {
        guard !isClosing, closedOnce.set() else { return }
        handler.closed(error)
    }

    private func openListenStreamOnce() {
        guard endpoint.opensListenStream else { return }
        let first = state.withLock { state in
            defer { state.listening = true }
            return !state.listening
        }
        if first { outbox.yield(.listen) }
    }

    // MARK: - Requests

    /// A request to the endpoint with the configured headers, then the frame's own and the session and version
    /// headers; a 2026-07-28 `frame` gets that era's routing headers instead, and no session.
    func makeRequest(method: HTTPMethod, accept: String?, for frame: OutboundFrame? = nil) -> UpstreamRequest {
        var request = UpstreamRequest(method: method)
        for (name, value) in endpoint.headers { request.headers.replaceOrAdd(name: name, value: value) }
        if let accept { request.headers.replaceOrAdd(name: "Accept", value: accept) }
        if let frame, frame.modernVersion != nil {
            for (name, value) in frame.modernHeaders { request.headers.replaceOrAdd(name: name, value: value) }
            return request
        }
        for (name, value) in frame?.extraHeaders ?? [] { request.headers.replaceOrAdd(name: name, value: value) }
        let (sessionID, version) = state.withLock { ($0.sessionID, $0.protocolVersion) }
        if let sessionID { request.headers.replaceOrAdd(name: Self.sessionHeader, value: sessionID) }
        if let version { request.headers.replaceOrAdd(name: Self.versionHeader, value: version) }
        return request
    }

    /// Adds the authorizer's credential to `request`, if the endpoint has one; returns what was sent.
    func authorize(_ request: inout UpstreamRequest) async throws(UpstreamError) -> String? {
        guard let authorizer = endpoint.authorizer else { return nil }
        let credential = try await authorizer.authorization()
        request.headers.replaceOrAdd(name: "Authorization", value: credential)
        return credential
    }

    /// Whether a 401 (or a 403 asking for more scope) to a request sent with `credential` was answered by the
    /// authorizer with another credential to try.
    func reauthorize(after response: UpstreamResponse, credential: String?) async -> Bool {
        let status = Int(response.status.code)
        guard status == 401 || status == 403, let credential, let authorizer = endpoint.authorizer else { return false }
        let challenge = response.headers.first(name: "WWW-Authenticate")
        if status == 403, challenge?.contains("insufficient_scope") != true { return false }
        return await authorizer.rejected(credential, status: status, challenge: challenge)
    }

    /// The error for a non-2xx answer: `auth` for 401/403 (a token to fix, not a server to retry), else `http`;
    /// the message quotes a JSON-RPC error body when the server sent one (bounded; never the headers).
    static func statusError(_ response: UpstreamResponse) async -> UpstreamError {
        statusError(response, body: await boundedBody(response))
    }

    /// ``statusError(_:)`` for a body already read.
    static func statusError(_ response: UpstreamResponse, body: [UInt8]) -> UpstreamError {
        let status = Int(response.status.code)
        var detail = ""
        if let message = (try? JSONValue.parse(body))?["error"]?["message"]?.stringValue {
            detail = ": \(message.prefix(300))"
        }
        let kind: UpstreamError.Kind = status == 401 || status == 403 ? .auth : .http
        return UpstreamError(
            kind,
            "the server answered HTTP \(status) \(response.status.reasonPhrase)\(detail)",
            httpStatus: status
        )
    }

    /// Up to 64 KiB of an answer's body (what an error carries); empty when it cannot be read.
    static func boundedBody(_ response: UpstreamResponse) async -> [UInt8] {
        guard let body = try? await response.body.collect(upTo: 64 * 1024) else { return [] }
        return Array(body.readableBytesView)
    }

    /// A request that never got an HTTP answer: refused, reset, timed out.
    static func networkError(_ error: any Error) -> UpstreamError {
        if let error = error as? UpstreamError { return error }
        if let error = error as? HTTPClientError, error == .deadlineExceeded {
            return UpstreamError(.timeout, "the server did not answer in time")
        }
        return UpstreamError(.network, "the server cannot be reached: \(error)")
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
