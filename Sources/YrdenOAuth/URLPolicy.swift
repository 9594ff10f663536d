/// Which URLs OAuth may fetch, send the user to, or send credentials to.
///
/// `https` always; plain `http` only to a loopback host (a development server, the gateway's own redirect) or
/// to the MCP server's own host, which the operator chose by configuring an `http://` URL. Anything else, such
/// as `javascript:` or a metadata document pointing at `http://169.254.169.254/`, is refused.
struct URLPolicy: Sendable {
    /// The host of the configured MCP server.
    var serverHost: String

    /// `text` parsed and checked; `purpose` names it in the error ("the token endpoint").
    func check(_ text: String, purpose: String) throws(OAuthError) -> OAuthURL {
        guard let url = OAuthURL(text) else {
            throw OAuthError(
                .insecureURL,
                "\(purpose) \(printable(text, limit: 200).quotedForMessage) is not an http(s) URL"
            )
        }
        guard url.scheme == "https" || url.isLoopback || url.host == serverHost else {
            throw OAuthError(
                .insecureURL,
                "\(purpose) \(url) uses plain http on a host other than this machine or the server's; "
                    + "OAuth needs https there"
            )
        }
        return url
    }
}

extension String {
    /// The text in double quotes, for messages.
    var quotedForMessage: String { "\"\(self)\"" }
}
