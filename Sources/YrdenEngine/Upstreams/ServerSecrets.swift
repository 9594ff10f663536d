import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// The secret values one server's entry expands to, hidden from what the gateway shows about that server.
///
/// Redaction hides secrets as the config writes them; this hides them as they are used. An upstream that
/// echoes the token it was sent in its error message, or a child that prints its environment on stderr,
/// would otherwise put the value into `lastError` (`/healthz`, the admin API, events) and into the log ring
/// and the gateway's log. Values shorter than ``shortest`` are left alone: hiding `1` or `UTC` everywhere
/// would garble every line and protect nothing.
struct ServerSecrets: Sendable {
    static let shortest = 6
    static let mark = UpstreamError.hiddenMark

    /// Longest first, so a value that contains another is hidden whole.
    private let values: [String]

    init(_ spec: ServerSpec) {
        var found: [String] = []
        switch spec.transport {
        case .stdio(_, _, let env, _):
            found = Array(env.values)
        case .http(let url, let headers, let auth, _), .sse(let url, let headers, let auth),
            .websocket(let url, let headers, let auth):
            found = URLCredentials.credentials(in: url)
            for value in headers.values {
                // `Bearer <token>`: the token alone may be echoed too (the scheme is no secret).
                found += [value] + value.split(separator: " ").dropFirst().map(String.init)
            }
            if case .oauth(let oauth) = auth, let secret = oauth.clientSecret { found.append(secret) }
            if case .tokenExchange(let exchange) = auth, let secret = exchange.clientSecret { found.append(secret) }
        }
        values = Set(found.filter { $0.count >= Self.shortest }).sorted { $0.count > $1.count }
    }

    func scrub(_ text: String) -> String {
        values.reduce(text) { text, value in text.contains(value) ? text.replacing(value, with: Self.mark) : text }
    }

    func scrub(_ error: UpstreamError) -> UpstreamError {
        var scrubbed = error
        scrubbed.message = scrub(error.message)
        return scrubbed
    }
}
