import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension LegacySSEConnection {
    /// Delivers one frame to the message endpoint, retrying where that is safe: a network error or a 5xx for
    /// an idempotent request, with the same backoff as Streamable HTTP. Anything else that is not a 2xx fails
    /// the request with the status; a tool call whose POST went out is never repeated.
    func post(_ frame: OutboundFrame, to url: String) async {
        var attempt = 0
        while !Task.isCancelled, isOpen {
            attempt += 1
            guard let (error, retryable) = await postOnce(frame, to: url) else { return }
            guard retryable, frame.isIdempotent, attempt <= HTTPConnection.retryDelays.count else {
                fail(frame, error)
                return
            }
            try? await Task.sleep(for: HTTPConnection.retryDelays[attempt - 1])
        }
    }

    /// One POST; nil when the server accepted the message, else why not and whether a retry may help.
    private func postOnce(_ frame: OutboundFrame, to url: String) async -> (UpstreamError, retryable: Bool)? {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in endpoint.headers { request.headers.replaceOrAdd(name: name, value: value) }
        for (name, value) in frame.extraHeaders { request.headers.replaceOrAdd(name: name, value: value) }
        request.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        request.body = .bytes(frame.bytes)
        let response: HTTPClientResponse
        do {
            let deadline = NIODeadline.now() + HTTPConnection.timeAmount(endpoint.requestTimeout)
            response = try await client.execute(request, deadline: deadline)
        } catch {
            return (HTTPConnection.networkError(error), retryable: true)
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            return (await HTTPConnection.statusError(UpstreamResponse(response)), retryable: status >= 500)
        }
        // Usually "Accepted"; the answer comes on the stream. Drained so the connection is reused.
        do {
            for try await _ in response.body {}
        } catch {
            handler.log("the server's answer to a POST broke off: \(error)")
        }
        return nil
    }
}
