import FoundationEssentials

/// Where and how to reach one upstream over the deprecated HTTP+SSE transport (MCP 2024-11-05).
package struct LegacySSEEndpoint: Sendable {
    /// The SSE endpoint the stream is opened on, e.g. `http://127.0.0.1:9000/sse`.
    package var url: String
    /// Sent on the GET and on every POST. They often carry secrets: never log their values.
    package var headers: [String: String]
    /// The longest one POST may take. The server only accepts the message there; its answer comes on the stream.
    package var requestTimeout: Duration
    /// How long the stream may take to name the endpoint messages are posted to.
    package var endpointTimeout: Duration

    package init(url: String, headers: [String: String], requestTimeout: Duration, endpointTimeout: Duration) {
        self.url = url
        self.headers = headers
        self.requestTimeout = requestTimeout
        self.endpointTimeout = endpointTimeout
    }

    /// The URL to POST messages to, from the data of the stream's `endpoint` event.
    ///
    /// SDKs send a path such as `/messages/?session_id=…`, so the data is resolved against the SSE URL, and its
    /// query is kept. An endpoint on another origin (scheme, host, port) is refused: the configured headers,
    /// credentials often, would go to a host nobody configured. So is one carrying user info of its own.
    package func postURL(fromEndpointEvent data: String) throws(UpstreamError) -> String {
        var reference = Substring(data)
        while reference.first?.isWhitespace == true { reference.removeFirst() }
        while reference.last?.isWhitespace == true { reference.removeLast() }
        guard let base = URL(string: url), let baseOrigin = Origin(base) else {
            throw UpstreamError(.protocol, "the SSE URL is not an http or https URL")
        }
        guard !reference.isEmpty, let resolved = URL(string: String(reference), relativeTo: base) else {
            throw UpstreamError(.protocol, "the server's endpoint event does not hold a URL")
        }
        guard let origin = Origin(resolved), origin == baseOrigin else {
            throw UpstreamError(
                .protocol,
                "the server named a message endpoint on another origin than its SSE URL; refused, so the "
                    + "configured headers never go to another host"
            )
        }
        guard resolved.user == nil, resolved.password == nil else {
            throw UpstreamError(.protocol, "the server named a message endpoint with user info; refused")
        }
        return resolved.absoluteString
    }
}

/// The scheme, host and port of an http(s) URL, with the scheme's default port filled in.
private struct Origin: Equatable {
    var scheme: String
    var host: String
    var port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        switch scheme {
        case "http": port = url.port ?? 80
        case "https": port = url.port ?? 443
        default: return nil
        }
        self.scheme = scheme
        self.host = host
    }
}
