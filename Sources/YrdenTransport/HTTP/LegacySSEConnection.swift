import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization
import YrdenProtocol

/// The state and the I/O behind one ``LegacySSEChannel``.
///
/// One task (`run`) keeps the GET stream open as a child task, waits for its `endpoint` event, then POSTs
/// each frame from the channel's outbox there. The server's answers and notifications arrive on the stream,
/// so a POST only tells whether the message was accepted. The session lives as long as that one stream:
/// nothing resumes it, so its end is the end of the channel.
final class LegacySSEConnection: Sendable {
    private struct State {
        var closing = false
        var ended = false
        var postURL: String?
    }

    let endpoint: LegacySSEEndpoint
    let client: HTTPClient
    let handler: UpstreamChannelHandler
    private let state = Mutex(State())
    private let closedOnce = OnceFlag()
    private let replies: ReplyBudget
    /// Carries the POST URL once the `endpoint` event named it; finishes without one when the stream ends first.
    private let postURLs: AsyncStream<String>
    private let postURLsContinuation: AsyncStream<String>.Continuation

    init(endpoint: LegacySSEEndpoint, client: HTTPClient, handler: UpstreamChannelHandler) {
        self.endpoint = endpoint
        self.client = client
        self.handler = handler
        self.replies = ReplyBudget(log: handler.log)
        (postURLs, postURLsContinuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// False once the channel is closing or has reported `closed`: nothing more is sent or delivered.
    var isOpen: Bool { state.withLock { !$0.closing && !$0.ended } }

    func beginClosing() { state.withLock { $0.closing = true } }

    /// Runs until the outbox ends or the task is cancelled, or until the stream ends without naming an endpoint;
    /// cancellation reaches every request in flight and the stream. Frames queued before the endpoint is known
    /// wait in the outbox, in order.
    func run(_ work: AsyncStream<OutboundFrame>) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.stream() }
            guard let postURL = await waitForPostURL() else {
                group.cancelAll()
                return
            }
            for await frame in work {
                guard isOpen else { break }
                if frame.method == MCPMethod.initialized {
                    // Inline, so no request overtakes it: the server must see it before what follows.
                    await post(frame, to: postURL)
                } else if ReplyBudget.isReply(frame) {
                    guard replies.tryAcquire() else { continue }
                    group.addTask {
                        await self.post(frame, to: postURL)
                        self.replies.release()
                    }
                } else {
                    group.addTask { await self.post(frame, to: postURL) }
                }
            }
            group.cancelAll()
        }
    }

    /// The POST URL, or nil when the stream ended without naming one (already reported as `closed`), the
    /// wait timed out (reported here), or the channel is closing.
    private func waitForPostURL() async -> String? {
        let timeout = endpoint.endpointTimeout
        let outcome = await withTaskGroup(of: EndpointWait.self) { group in
            group.addTask {
                for await url in self.postURLs { return .named(url) }
                return .ended
            }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                    return .timedOut
                } catch {
                    return .ended
                }
            }
            let first = await group.next() ?? .ended
            group.cancelAll()
            return first
        }
        switch outcome {
        case .named(let url):
            return url
        case .timedOut:
            end(UpstreamError(.protocol, "the server's SSE stream named no message endpoint within \(timeout)"))
            return nil
        case .ended:
            return nil
        }
    }

    private enum EndpointWait: Sendable {
        case named(String)
        /// The stream ended first (already reported), or the channel is closing.
        case ended
        case timedOut
    }

    // MARK: - The stream

    /// Opens the GET stream and delivers what it carries until it ends, which ends the channel.
    private func stream() async {
        var request = HTTPClientRequest(url: endpoint.url)
        request.method = .GET
        for (name, value) in endpoint.headers { request.headers.replaceOrAdd(name: name, value: value) }
        request.headers.replaceOrAdd(name: "Accept", value: "text/event-stream")
        let response: HTTPClientResponse
        do {
            // No deadline: the stream is meant to stay open; the connect timeout still applies.
            response = try await client.execute(request, deadline: .distantFuture)
        } catch {
            if !Task.isCancelled { end(HTTPConnection.networkError(error)) }
            return
        }
        guard response.status == .ok else {
            end(await HTTPConnection.statusError(UpstreamResponse(response)))
            return
        }
        let contentType = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
        guard contentType.hasPrefix("text/event-stream") else {
            end(
                UpstreamError(
                    .protocol,
                    "the server answered the SSE GET with \(contentType.isEmpty ? "no content type" : contentType), "
                        + "not text/event-stream"
                )
            )
            return
        }
        var parser = SSEParser(maxEventBytes: HTTPConnection.maxBodyBytes)
        do {
            for try await buffer in response.body {
                parser.feed(buffer.readableBytesView) { receive($0) }
                guard isOpen else { return }
            }
            if !Task.isCancelled { end(UpstreamError(.network, "the server ended the SSE stream")) }
        } catch {
            if !Task.isCancelled { end(UpstreamError(.network, "the server's SSE stream broke off: \(error)")) }
        }
    }

    private func receive(_ event: SSEEvent) {
        guard isOpen else { return }
        switch event.event {
        case "endpoint":
            learnPostURL(String(decoding: event.data, as: UTF8.self))
        case nil, "message":
            deliver(event.data)
        case let other?:
            handler.log("ignored an SSE event of type \(other.prefix(40))")
        }
    }

    private func learnPostURL(_ data: String) {
        let url: String
        do {
            url = try endpoint.postURL(fromEndpointEvent: data)
        } catch {
            end(error)
            return
        }
        let first = state.withLock { state in
            defer { state.postURL = state.postURL ?? url }
            return state.postURL == nil
        }
        guard first else {
            handler.log("ignored a second endpoint event")
            return
        }
        postURLsContinuation.yield(url)
        postURLsContinuation.finish()
    }

    /// Hands one message, or each message of a batch, to the handler.
    private func deliver(_ data: [UInt8]) {
        guard data.first(where: { !Self.isJSONWhitespace($0) }) == UInt8(ascii: "[") else {
            handler.frame(data)
            return
        }
        guard case .array(let messages) = try? JSONValue.parse(data) else {
            handler.log("ignored a message from the server that is not JSON")
            return
        }
        for message in messages { handler.frame(message.serialized()) }
    }

    // MARK: - Failures

    /// Fails a request whose POST failed, so its caller learns the transport's reason at once while the
    /// channel lives on. Notifications and responses have no one to tell: the failure is logged.
    func fail(_ frame: OutboundFrame, _ error: UpstreamError) {
        guard isOpen, !Task.isCancelled else { return }
        guard let id = frame.id else {
            handler.log("could not deliver \(frame.method ?? "a response") to the server: \(error.message)")
            return
        }
        handler.requestFailed(id, error)
    }

    /// Ends the channel: reports `closed` once (never while closing) and stops the wait for an endpoint.
    private func end(_ error: UpstreamError) {
        let closing = state.withLock { state in
            state.ended = true
            return state.closing
        }
        if !closing, closedOnce.set() { handler.closed(error) }
        postURLsContinuation.finish()
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
