import YrdenProtocol

/// Where to sign in for one MCP server, as discovery found it.
struct DiscoveredAuthorization: Sendable, Hashable {
    /// The RFC 8707 `resource` to send: the metadata's resource when the server URL lies within it, else the
    /// server's canonical URL.
    var resource: String
    var resourceMetadata: ProtectedResourceMetadata?
    var server: AuthorizationServerMetadata
}

/// Finds the authorization server of an MCP server (MCP authorization spec, "Authorization Server Discovery").
///
/// 1. Protected-resource metadata (RFC 9728): the `resource_metadata` URL of the 401 challenge when there is
///    one, then the path-inserted and root well-known URLs. Its `resource` must be the server's URL or a
///    parent of it.
/// 2. Authorization-server metadata for its first `authorization_servers` entry, at the RFC 8414 and OIDC URLs
///    in the order the spec gives. The document's `issuer` must be the issuer the URL was built from. Servers
///    of the 2025-03-26 era publish no resource metadata: then the server's origin is taken as the issuer.
/// 3. The authorization server must support PKCE with `S256`.
struct MetadataDiscovery: Sendable {
    var http: OAuthHTTP
    var policy: URLPolicy

    func discover(server: OAuthURL, challenge: BearerChallenge?) async throws(OAuthError) -> DiscoveredAuthorization {
        let resourceMetadata = try await protectedResourceMetadata(server: server, challenge: challenge)
        let issuerText = resourceMetadata?.authorizationServers[0] ?? server.origin
        let issuer = try policy.check(issuerText, purpose: "the authorization server")
        let metadata = try await authorizationServerMetadata(issuer: issuerText, url: issuer)
        guard metadata.supportsS256 else {
            throw OAuthError(
                .discovery,
                "the authorization server \(metadata.issuer) does not list S256 in code_challenge_methods_supported, "
                    + "so PKCE cannot be used and the sign-in is refused"
            )
        }
        _ = try policy.check(metadata.authorizationEndpoint, purpose: "the authorization endpoint")
        _ = try policy.check(metadata.tokenEndpoint, purpose: "the token endpoint")
        var resource = server.canonicalResource
        if let declared = resourceMetadata.flatMap({ OAuthURL($0.resource) }), server.isWithin(declared) {
            resource = resourceMetadata?.resource ?? resource
        }
        return DiscoveredAuthorization(resource: resource, resourceMetadata: resourceMetadata, server: metadata)
    }

    /// The first usable protected-resource metadata document, or nil when no URL serves one.
    private func protectedResourceMetadata(
        server: OAuthURL,
        challenge: BearerChallenge?
    ) async throws(OAuthError) -> ProtectedResourceMetadata? {
        var candidates = WellKnownURLs.protectedResource(for: server)
        if let announced = challenge?.resourceMetadata {
            let url = try policy.check(announced, purpose: "the resource_metadata URL of the server's challenge")
            candidates.insert(url.description, at: 0)
        }
        for url in candidates {
            guard let document = try await http.fetchJSONObject(url).document else { continue }
            guard let metadata = ProtectedResourceMetadata(document) else {
                throw OAuthError(
                    .discovery,
                    "the protected-resource metadata at \(url) has no resource or no authorization_servers"
                )
            }
            guard let declared = OAuthURL(metadata.resource), server.isWithin(declared) else {
                throw OAuthError(
                    .discovery,
                    "the protected-resource metadata at \(url) describes \(printable(metadata.resource, limit: 200)), "
                        + "not \(server.canonicalResource); it is not used"
                )
            }
            return metadata
        }
        return nil
    }

    private func authorizationServerMetadata(
        issuer: String,
        url: OAuthURL
    ) async throws(OAuthError) -> AuthorizationServerMetadata {
        var tried: [String] = []
        for candidate in WellKnownURLs.authorizationServer(for: url) {
            let (status, document) = try await http.fetchJSONObject(candidate)
            guard let document else {
                tried.append("\(candidate) (HTTP \(status))")
                if status >= 500 { break }
                continue
            }
            guard let metadata = AuthorizationServerMetadata(document) else {
                tried.append("\(candidate) (no issuer, authorization_endpoint or token_endpoint)")
                continue
            }
            guard Self.sameIssuer(metadata.issuer, issuer) else {
                throw OAuthError(
                    .discovery,
                    "the metadata at \(candidate) names the issuer \(printable(metadata.issuer, limit: 200)), "
                        + "not \(issuer); it is not used"
                )
            }
            return metadata
        }
        throw OAuthError(
            .discovery,
            "no authorization-server metadata for \(issuer); tried \(tried.joined(separator: ", "))"
        )
    }

    /// Issuers compare as strings (RFC 8414 §3.3), except that `https://as` and `https://as/` are one URL
    /// (RFC 3986 §6.2.3): some servers write a bare origin with the slash.
    static func sameIssuer(_ first: String, _ second: String) -> Bool {
        first == second || withoutRootSlash(first) == withoutRootSlash(second)
    }

    private static func withoutRootSlash(_ issuer: String) -> String {
        guard issuer.hasSuffix("/"), let url = OAuthURL(issuer), url.path == "/", url.query == nil else {
            return issuer
        }
        return String(issuer.dropLast())
    }
}
