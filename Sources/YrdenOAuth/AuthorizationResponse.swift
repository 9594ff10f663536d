/// The query parameters the authorization server sends the browser back with (RFC 6749 §4.1.2, RFC 9207).
package struct AuthorizationResponse: Sendable, Hashable {
    package var state: String?
    package var code: String?
    package var error: String?
    package var errorDescription: String?
    /// RFC 9207: the issuer that produced the response.
    package var issuer: String?

    package init(
        state: String? = nil,
        code: String? = nil,
        error: String? = nil,
        errorDescription: String? = nil,
        issuer: String? = nil
    ) {
        self.state = state
        self.code = code
        self.error = error
        self.errorDescription = errorDescription
        self.issuer = issuer
    }

    /// Reads decoded query parameters; nil when one of the response's parameters appears twice, which RFC 6749
    /// §3.1 forbids and which would make it ambiguous which `state` or `code` counts.
    init?(parameters: [(String, String)]) {
        var values: [String: String] = [:]
        for (name, value) in parameters where Self.names.contains(name) {
            guard values[name] == nil else { return nil }
            values[name] = value
        }
        self.init(
            state: values["state"],
            code: values["code"],
            error: values["error"],
            errorDescription: values["error_description"],
            issuer: values["iss"]
        )
    }

    /// Reads the query of the URL the browser was sent to (`http://127.0.0.1:8750/oauth/callback?code=…`); the
    /// admin API takes that URL from a user who copied it. Nil when it has no readable query.
    package init?(callbackURL: String) {
        var text = Substring(callbackURL)
        if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
        guard let question = text.firstIndex(of: "?"),
            let parameters = FormEncoding.decode(text[text.index(after: question)...])
        else { return nil }
        self.init(parameters: parameters)
    }

    /// Reads query parameters the HTTP server already decoded.
    package init(query: [String: String]) {
        self.init(
            state: query["state"],
            code: query["code"],
            error: query["error"],
            errorDescription: query["error_description"],
            issuer: query["iss"]
        )
    }

    private static let names: Set<String> = ["state", "code", "error", "error_description", "iss"]
}
