/// What a protected MCP server says in its `Bearer` challenge on a 401 or 403 (RFC 6750 §3, RFC 9728 §5.1).
package struct BearerChallenge: Sendable, Hashable {
    /// Where the server's protected-resource metadata is (RFC 9728), when it says.
    package var resourceMetadata: String?
    /// The scopes the request needs, when the server says (`scope="a b"`).
    package var scopes: [String]?
    /// `invalid_token`, `insufficient_scope`, …
    package var error: String?
    package var errorDescription: String?

    package init(
        resourceMetadata: String? = nil,
        scopes: [String]? = nil,
        error: String? = nil,
        errorDescription: String? = nil
    ) {
        self.resourceMetadata = resourceMetadata
        self.scopes = scopes
        self.error = error
        self.errorDescription = errorDescription
    }

    /// The first `Bearer` challenge among `headers` (each a `WWW-Authenticate` field value), or nil when
    /// there is none.
    package init?(headers: [String]) {
        for header in headers {
            for challenge in AuthenticationChallenge.parse(header) where challenge.scheme.lowercased() == "bearer" {
                self.init(challenge)
                return
            }
        }
        return nil
    }

    /// The `Bearer` challenge in one `WWW-Authenticate` field value.
    package init?(header: String) {
        self.init(headers: [header])
    }

    init(_ challenge: AuthenticationChallenge) {
        let parameters = challenge.parameters
        resourceMetadata = parameters["resource_metadata"].flatMap { $0.isEmpty ? nil : $0 }
        scopes = parameters["scope"].map { $0.split(whereSeparator: { $0 == " " }).map(String.init) }
        if scopes?.isEmpty == true { scopes = nil }
        error = parameters["error"]
        errorDescription = parameters["error_description"]
    }

    /// A 403 that a wider scope would cure (RFC 6750 §3.1).
    package var isInsufficientScope: Bool { error == "insufficient_scope" }
}
