import Logging

extension OAuthSession {
    /// The stored tokens were changed by another replica sharing the store (a sign-in, a refresh, a sign-out):
    /// takes what the store holds now, so a sign-in through any replica serves calls on all, and a sign-out
    /// signs all out.
    ///
    /// New tokens end a wait for a sign-in this replica started itself (the user signed in elsewhere); a
    /// sign-in asking for wider scopes while tokens were held goes on, and a step-up still needed keeps its
    /// `needsReauth`. A refresh of this session waiting for its turn meanwhile takes the same tokens in it.
    package func storedTokensChanged() {
        guard loaded else {
            loadIfNeeded()
            return
        }
        let stored: OAuthTokens?
        do {
            stored = try credentials.loadTokens()
        } catch {
            logger.error("cannot read the OAuth tokens another replica stored: \(error.message)")
            return
        }
        guard stored != tokens else { return }
        guard let stored else {
            tokens = nil
            tokenGeneration += 1
            refresh = nil
            if !progress.isSigningIn { setProgress(.needsReauth(reason: "signed out through another replica")) }
            return
        }
        // Tokens issued for another URL than this replica's entry names are not sent there (a config that
        // differs between replicas for a moment); this replica's own loading would remove them.
        guard let resource = OAuthURL(stored.resource), server.isWithin(resource) else { return }
        let hadTokens = tokens != nil
        tokens = stored
        tokenGeneration += 1
        logger.debug("took the OAuth tokens another replica stored")
        if progress == .complete { return }
        if progress.isSigningIn {
            guard !hadTokens else { return }
            cancelFlow()
        } else if let stepUpScopes, !Set(stepUpScopes).isSubset(of: Set(stored.scopes ?? [])) {
            return
        }
        stepUpScopes = nil
        setProgress(.complete)
    }
}
