import Logging
import YrdenProtocol

/// Told that a refresh of a server's tokens starts; the closure it returns is told how it ended: `nil` for new
/// tokens (or another replica's), else why not. The gateway's tracing makes an `oauth.refresh` span of it
/// without this target knowing of tracing.
package typealias OAuthRefreshWatch = @Sendable () -> (@Sendable (_ failure: OAuthError?) -> Void)?

extension OAuthSession {
    /// Fresh tokens from the refresh token. Concurrent callers share one request (single flight): an
    /// authorization server that rotates refresh tokens would refuse the second of two parallel refreshes.
    func refreshedTokens() async throws(OAuthError) -> OAuthTokens {
        let task: Task<OAuthTokens, any Error>
        if let running = refresh {
            task = running
        } else {
            guard let current = tokens, current.refreshToken != nil else { throw needsSignIn() }
            let generation = tokenGeneration
            let watch = refreshWatch
            task = Task {
                let ended = watch?()
                do throws(OAuthError) {
                    let renewed = try await self.performRefresh(current, generation: generation)
                    ended?(nil)
                    return renewed
                } catch {
                    ended?(error)
                    throw error
                }
            }
            refresh = task
        }
        let result = await task.result
        if refresh == task { refresh = nil }
        switch result {
        case .success(let tokens): return tokens
        case .failure(let error as OAuthError): throw error
        case .failure(let error): throw OAuthError(.network, "cannot refresh the access token: \(error)")
        }
    }

    /// One refresh: in this replica's turn when replicas share the tokens (``OAuthReplicaStore``), else at once.
    private func performRefresh(_ current: OAuthTokens, generation: Int) async throws(OAuthError) -> OAuthTokens {
        guard let replicaStore else {
            let renewed = try await requestRefresh(current, generation: generation)
            adopt(renewed)
            refreshed()
            return renewed
        }
        let serverID = serverID
        do {
            return try await replicaStore.withTurn(credentials.refreshLockName, reading: credentials.tokensName) {
                stored in
                try await self.takeTurn(current, generation: generation, stored: stored)
            }
        } catch let error as OAuthError {
            throw error
        } catch {
            // The store could not be reached: the tokens held serve until they expire, as when the server
            // does not answer; refreshing without the lock could make another replica's refresh revoke them.
            logger.warning("OAuth refresh failed; will retry: \(error)")
            throw OAuthError(.network, "cannot refresh the access token of server \(serverID): \(error)")
        }
    }

    /// This replica's turn at refreshing, with the tokens as stored now: tokens another replica stored
    /// meanwhile are taken as they are; only tokens still due are refreshed, and the new ones go back to the
    /// lock, which stores them before the next turn. Kept in memory here, not queued for the store again.
    private func takeTurn(
        _ current: OAuthTokens,
        generation: Int,
        stored: [UInt8]?
    ) async throws(OAuthError) -> (result: OAuthTokens, store: [UInt8]?) {
        let storedTokens = stored.flatMap { try? JSONValue.parse($0) }.flatMap(OAuthTokens.init(document:))
        // Signed out or in here while the refresh waited, and not stored yet: this replica's change wins.
        guard generation == tokenGeneration || tokens == storedTokens else {
            throw OAuthError(.cancelled, "the tokens of server \(serverID) were replaced during the refresh")
        }
        switch RefreshTurn.decide(refreshing: current, stored: storedTokens, at: clock.now()) {
        case .signedOut:
            if tokens != nil {
                tokens = nil
                tokenGeneration += 1
                if !progress.isSigningIn { setProgress(.needsReauth(reason: "signed out through another replica")) }
            }
            throw needsSignIn()
        case .adopt(let newer):
            if tokens != newer {
                tokens = newer
                tokenGeneration += 1
            }
            logger.debug("another replica refreshed the OAuth tokens first; using them")
            refreshed()
            return (newer, nil)
        case .grant(let base):
            if tokens != base {
                tokens = base
                tokenGeneration += 1
            }
            let renewed = try await requestRefresh(base, generation: tokenGeneration)
            tokens = renewed
            tokenGeneration += 1
            refreshed()
            return (renewed, renewed.document.serialized())
        }
    }

    private func refreshed() {
        logger.debug("OAuth access token refreshed")
        if !progress.isSigningIn { setProgress(.complete) }
    }

    /// One refresh request and what follows from its answer: the new tokens (with the old refresh token when
    /// the server did not rotate it), for the caller to keep; a refusal means the tokens are dead and a sign-in
    /// is needed; no answer leaves everything as it was for a later try.
    private func requestRefresh(_ current: OAuthTokens, generation: Int) async throws(OAuthError) -> OAuthTokens {
        guard let refreshToken = current.refreshToken else { throw needsSignIn() }
        let client: ClientRegistration
        do {
            client = try refreshClient(for: current)
        } catch {
            discardTokens(reason: error.message)
            throw needsSignIn()
        }
        let tokenURL = try policy.check(current.tokenEndpoint, purpose: "the token endpoint")
        let endpoint = TokenEndpoint(http: http, url: tokenURL.description, client: client)
        let response: TokenResponse
        do {
            response = try await endpoint.refresh(refreshToken, resource: current.resource)
        } catch {
            guard generation == tokenGeneration else { throw OAuthError(.cancelled, "the tokens were replaced") }
            guard error.kind == .refused else {
                logger.warning("OAuth refresh failed; will retry: \(error.message)")
                throw error
            }
            if client.isDynamic && error.serverCode == "invalid_client" {
                forgetRegistration(client.clientID)
            }
            discardTokens(reason: "\(error.message); sign in again")
            throw needsSignIn()
        }
        guard generation == tokenGeneration else {
            throw OAuthError(.cancelled, "the tokens of server \(serverID) were replaced during the refresh")
        }
        let now = clock.now()
        var renewed = current
        renewed.accessToken = response.accessToken
        renewed.refreshToken = response.refreshToken ?? refreshToken
        renewed.scopes = response.scopes ?? current.scopes
        renewed.issuedAt = now
        renewed.expiresAt = response.expiresIn.map { now + $0 }
        return renewed
    }

    /// The client the tokens were issued to: the configured one (with the token authentication method
    /// sign-in chose for it, stored without the secret), the client ID metadata document, or the dynamic registration, stored or kept with the
    /// tokens (another replica's sign-in may have stored a registration of its own since).
    private func refreshClient(for tokens: OAuthTokens) throws(OAuthError) -> ClientRegistration {
        let stored = try credentials.loadRegistration()
        let candidates = [stored, tokens.client].compactMap { $0 }
        if let clientID = configuration.clientID, clientID == tokens.clientID {
            let secret = configuration.clientSecret
            var method = ClientRegistration.AuthMethod.none
            if secret != nil {
                let recorded = candidates.first { !$0.isDynamic && $0.clientID == clientID }?.authMethod
                method = recorded.flatMap { $0 == .none ? nil : $0 } ?? .clientSecretBasic
            }
            return ClientRegistration(
                clientID: clientID,
                clientSecret: secret,
                authMethod: method,
                issuer: tokens.issuer,
                redirectURI: configuration.redirectURI,
                secretExpiresAt: nil,
                isDynamic: false
            )
        }
        if let documentURL = configuration.clientMetadataURL, documentURL == tokens.clientID {
            return .metadataDocument(documentURL, issuer: tokens.issuer, redirectURI: configuration.redirectURI)
        }
        let issuedTo = candidates.first {
            $0.isDynamic && $0.clientID == tokens.clientID && $0.issuer == tokens.issuer
        }
        guard let issuedTo else {
            throw OAuthError(
                .needsSignIn,
                "the client that obtained the tokens of server \(serverID) is no longer registered; sign in again"
            )
        }
        return issuedTo
    }

    /// Drops the dynamic registration `clientID` the server no longer knows, so the next sign-in registers
    /// again; one stored since by another replica's sign-in is another client and stays.
    func forgetRegistration(_ clientID: String) {
        do {
            guard try credentials.loadRegistration()?.clientID == clientID else { return }
            try credentials.removeRegistration()
        } catch {
            logger.error("cannot remove the stored OAuth client registration: \(error.message)")
        }
    }
}
