import YrdenProtocol
import YrdenTransport

/// One request as a fake server's handler sees it, with what a real server could do while it runs: report
/// progress for the request's token, notify, wait, or die.
package struct FakeCall: Sendable {
    package let request: JSONRPCRequest
    package let upstream: FakeUpstream
    /// The connection the request came on: what the handler sends goes back on it, as a real server's would.
    let channel: FakeChannel

    package var params: JSONValue? { request.params }
    /// A tool call's `arguments`.
    package var arguments: JSONValue? { request.params?["arguments"] }
    /// The token the gateway put in `_meta` for this request's progress; `nil` when it asked for none.
    package var progressToken: JSONValue? { request.params?["_meta"]?["progressToken"] }

    /// Sends `notifications/progress` for this request's token; does nothing when the request has none.
    package func progress(_ progress: Double, total: Double? = nil, message: String? = nil) {
        guard let progressToken else { return }
        var params: JSONObject = ["progressToken": progressToken, "progress": .double(progress)]
        if let total { params["total"] = .double(total) }
        if let message { params["message"] = .string(message) }
        notify(MCPMethod.progress, params: .object(params))
    }

    /// Sends a notification on the request's connection.
    package func notify(_ method: String, params: JSONValue? = nil) {
        channel.deliver(.notification(JSONRPCNotification(method: method, params: params)))
    }

    /// Waits `duration` on the fakes' clock (a ``TestClock`` in tests that move time themselves); returns
    /// early only when the request's connection closes.
    package func sleep(for duration: Duration) async {
        let time = upstream.time
        try? await time.sleep(until: time.now + duration)
    }

    /// Ends the connection as a child process that exits would, before this request is answered.
    package func crash(_ message: String = "the server exited with status 1") {
        channel.crash(UpstreamError(.process, message))
    }
}
