import YrdenTelemetry

extension Gateway {
    /// How a traced token refresh ended: its `yrden.outcome` (`ok`, `sign_in_needed`, `error`) and, on
    /// failure, its `error.type` and message.
    package typealias RefreshSpanEnd = @Sendable (_ outcome: String, _ errorType: String?, _ message: String) -> Void

    /// Starts the `oauth.refresh` span of server `server`'s own tokens (not a user's: that one is a child of the
    /// refused call), a trace of its own since a refresh serves every call waiting for it; the closure ends it.
    /// `nil` with tracing off.
    package func startRefreshSpan(server: String) -> RefreshSpanEnd? {
        guard let tracer else { return nil }
        let started = RequestSpans.oauthRefresh(tracer, parent: nil, server)
        return { outcome, errorType, message in
            var span = started
            span.setMCP { $0.outcome = outcome }
            if let errorType { span.fail(errorType, message: message) }
            tracer.end(span)
        }
    }
}
