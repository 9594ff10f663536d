import YrdenProtocol

/// Where the issuer keeps what the gateway needs of it, read from its metadata (RFC 8414, else OpenID Connect
/// discovery): its key set and, for opaque tokens, its introspection endpoint.
struct IssuerMetadata: Sendable {
    let keySetURL: String?
    let introspectionURL: String?

    /// The metadata URLs to try for `issuer`, in order: RFC 8414's (the well-known segment before the issuer's
    /// path), then OpenID Connect's (after it).
    static func urls(for issuer: String) -> [String] {
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard let scheme = trimmed.firstRange(of: "://") else { return [] }
        let afterScheme = trimmed[scheme.upperBound...]
        let pathStart: String.Index = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        let origin = trimmed[..<pathStart]
        let path = trimmed[pathStart...]
        return [
            "\(origin)/.well-known/oauth-authorization-server\(path)",
            "\(trimmed)/.well-known/openid-configuration",
        ]
    }

    /// Reads a metadata document, which must name `issuer` exactly (RFC 8414 §3.3: a document for another
    /// issuer is not this one's).
    init?(_ document: JSONValue, issuer: String) {
        guard document["issuer"]?.stringValue == issuer else { return nil }
        keySetURL = document["jwks_uri"]?.stringValue
        introspectionURL = document["introspection_endpoint"]?.stringValue
    }

    /// The issuer's metadata from the first URL that gives a document for it.
    static func fetch(issuer: String, http: IssuerHTTP) async throws(TokenRejection) -> IssuerMetadata {
        var problem = "no metadata at \(urls(for: issuer).joined(separator: " or "))"
        for url in urls(for: issuer) {
            guard let answer = try? await http.send(IssuerHTTP.Request(url: url)) else {
                problem = "\(url) could not be reached"
                continue
            }
            guard answer.status == 200, let document = try? JSONValue.parse(answer.body) else { continue }
            guard let metadata = IssuerMetadata(document, issuer: issuer) else {
                problem = "\(url) is the metadata of another issuer"
                continue
            }
            return metadata
        }
        throw .issuerUnavailable(problem)
    }
}
