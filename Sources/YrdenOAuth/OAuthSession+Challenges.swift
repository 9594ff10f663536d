extension OAuthSession {
    /// The server answered 401 to a request. `challenge` is its `WWW-Authenticate` value (several fields
    /// joined with `, `), `rejectedToken` the token the request carried.
    ///
    /// Remembers the challenge (its `resource_metadata` and `scope` guide the next sign-in), then gets a new
    /// token: none is needed when the tokens were replaced since the request left; otherwise the refresh
    /// token is used. Returns true when retrying the request (once) with ``accessToken()`` makes sense; false
    /// when a sign-in is needed (progress says `needsReauth`) or the refresh got no answer.
    @discardableResult
    package func handleUnauthorized(challenge header: String?, rejectedToken: String? = nil) async -> Bool {
        if let header, let parsed = BearerChallenge(header: header) { challenge = parsed }
        loadIfNeeded()
        guard let current = tokens else {
            if !progress.isSigningIn, progress.status != "needsReauth" {
                setProgress(.needsReauth(reason: "server \(serverID) asks for an OAuth sign-in"))
            }
            return false
        }
        if let rejectedToken, rejectedToken != current.accessToken { return true }
        guard current.refreshToken != nil else {
            discardTokens(reason: "the server refused the access token and there is no refresh token; sign in again")
            return false
        }
        do {
            _ = try await refreshedTokens()
            return true
        } catch {
            return false
        }
    }

    /// The server answered 403. When its challenge says `insufficient_scope`, the next sign-in asks for the
    /// challenged scopes together with those held (step-up) and progress says `needsReauth`; returns true.
    ///
    /// Returns false for any other 403, and when the sign-in that got the current tokens already asked for
    /// every challenged scope: signing in again would not change the answer, so step-up stops there.
    @discardableResult
    package func handleForbidden(challenge header: String?) -> Bool {
        guard let header, let parsed = BearerChallenge(header: header), parsed.isInsufficientScope,
            let needed = parsed.scopes
        else { return false }
        loadIfNeeded()
        let held = ScopeSelection.union(tokens?.scopes ?? [], requestedScopes ?? [])
        if tokens != nil, Set(needed).isSubset(of: Set(held)) { return false }
        challenge = parsed
        stepUpScopes = ScopeSelection.union(held, needed)
        if !progress.isSigningIn {
            setProgress(
                .needsReauth(
                    reason: "the server needs the scope \(needed.joined(separator: " ")) for this request; "
                        + "sign in again to grant it"
                )
            )
        }
        return true
    }
}
