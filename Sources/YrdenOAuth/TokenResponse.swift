import YrdenProtocol

/// A successful token endpoint answer (RFC 6749 §5.1). `description` never shows a token.
struct TokenResponse: Sendable, Hashable, CustomStringConvertible {
    var accessToken: String
    var refreshToken: String?
    /// Seconds the access token lives, when the server says.
    var expiresIn: Double?
    var scopes: [String]?

    /// Reads the answer; nil without an `access_token`, or with a `token_type` other than `Bearer`, which the
    /// gateway could not use.
    init?(_ document: JSONValue) {
        guard let accessToken = document["access_token"]?.stringValue, !accessToken.isEmpty else { return nil }
        if let type = document["token_type"]?.stringValue, type.lowercased() != "bearer" { return nil }
        self.accessToken = accessToken
        refreshToken = document["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        // Some servers send the lifetime as a string. One that is no finite, non-negative number ("1e400",
        // "nan", -5) is taken as unsaid: NaN would make the token never due for refresh, and its expiry is
        // written to the token file and shown by the admin API as a time.
        let lifetime = document["expires_in"]
        expiresIn = (lifetime?.doubleValue ?? lifetime?.stringValue.flatMap(Double.init)).flatMap {
            $0.isFinite && $0 >= 0 ? $0 : nil
        }
        scopes = document["scope"]?.stringValue.map { $0.split(separator: " ").map(String.init) }
    }

    init(accessToken: String, refreshToken: String? = nil, expiresIn: Double? = nil, scopes: [String]? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.scopes = scopes
    }

    var description: String {
        "TokenResponse(access token <redacted>, \(refreshToken == nil ? "no" : "a") refresh token)"
    }
}
