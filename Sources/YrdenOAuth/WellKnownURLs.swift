/// The well-known metadata URLs to try, in the order the MCP authorization spec requires.
enum WellKnownURLs {
    /// RFC 9728 protected-resource metadata for the MCP server at `resource`: the path-inserted form first
    /// (`/.well-known/oauth-protected-resource/mcp`) when the URL has a path, then the root form.
    static func protectedResource(for resource: OAuthURL) -> [String] {
        let suffix = "/.well-known/oauth-protected-resource"
        let path = resource.trimmedPath
        var urls: [String] = []
        if !path.isEmpty {
            urls.append(resource.origin + suffix + path + (resource.query.map { "?" + $0 } ?? ""))
        }
        urls.append(resource.origin + suffix)
        return urls
    }

    /// Authorization-server metadata for `issuer`. With a path (`https://as/tenant1`): RFC 8414 path-inserted,
    /// OIDC path-inserted, OIDC path-appended. Without: RFC 8414 then OIDC at the root.
    static func authorizationServer(for issuer: OAuthURL) -> [String] {
        let oauth = "/.well-known/oauth-authorization-server"
        let openID = "/.well-known/openid-configuration"
        let path = issuer.trimmedPath
        guard !path.isEmpty else { return [issuer.origin + oauth, issuer.origin + openID] }
        return [issuer.origin + oauth + path, issuer.origin + openID + path, issuer.origin + path + openID]
    }
}
