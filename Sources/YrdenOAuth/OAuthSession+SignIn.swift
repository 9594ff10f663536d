import Logging
import YrdenProtocol
import YrdenStorage

extension OAuthSession {
    /// Starts a sign-in and returns the authorization URL for the user to open.
    ///
    /// Discovery, then the client (configured, stored, or registered now), then a flow registered with the
    /// router under a fresh `state`, and only then the URL. A sign-in already pending for this server is
    /// cancelled first. The flow expires after five minutes. Progress goes `discovering`, `registering` (when
    /// registering), `waitingForUser`, and ends `failed` with the reason when a step fails.
    package func beginSignIn() async throws(OAuthError) -> String {
        cancelFlow()
        let generation = signInGeneration
        setProgress(.discovering)
        do {
            return try await startFlow(generation: generation)
        } catch {
            if generation == signInGeneration { setProgress(.failed(reason: error.message)) }
            throw error
        }
    }

    /// Cancels a pending sign-in; its `state` stops working. Progress returns to what the tokens say.
    package func cancelSignIn() {
        let wasSigningIn = progress.isSigningIn
        cancelFlow()
        if wasSigningIn {
            loadIfNeeded()
            setProgress(tokens == nil ? .needsReauth(reason: "the sign-in was cancelled") : .complete)
        }
    }

    /// Ends whatever sign-in is under way, without touching progress.
    func cancelFlow() {
        signInGeneration += 1
        router.cancel(serverID: serverID)
        expiryTask?.cancel()
        expiryTask = nil
        forgetSharedSignIn()
    }

    /// A sign-in of this server that another replica started, for the browser's return that reached this
    /// one (a balancer sends it to any replica): nil when the store holds none under `state`. Taken out of the
    /// store, so its `state` works once.
    package func signInStartedElsewhere(state: String) async -> PendingAuthorization? {
        guard let replicaStore else { return nil }
        let name = SignInContext.sharedName(forState: state)
        // This replica's copy, else the store itself: a browser can be back before the copy has caught up.
        var bytes = (try? credentials.secrets.load(name)) ?? nil
        if bytes == nil { bytes = (try? await replicaStore.read(name)) ?? nil }
        guard let bytes, let document = try? JSONValue.parse(bytes), var context = SignInContext(document: document),
            context.serverID == serverID, context.state == state
        else { return nil }
        try? credentials.secrets.remove(name)
        if !context.client.isDynamic, context.client.clientID == configuration.clientID {
            context.client.clientSecret = configuration.clientSecret
        }
        let shared = context
        return PendingAuthorization(
            serverID: serverID,
            state: state,
            issuer: context.issuer,
            issuerRequired: context.issuerRequired,
            expiresAt: context.expiresAt,
            redeem: { [weak self] code in
                guard let self else { return .failed(serverID: shared.serverID, reason: "the gateway stopped") }
                return await self.redeemStartedElsewhere(code, shared)
            },
            abandon: { _ in }
        )
    }

    /// Redeems the code of a sign-in another replica started: this replica's own sign-in, if any, is
    /// overtaken, and the tokens reach the others through the store.
    private func redeemStartedElsewhere(_ code: String, _ context: SignInContext) async -> OAuthCallbackResult {
        cancelFlow()
        return await redeem(code, context, generation: signInGeneration)
    }

    /// Writes the context of this replica's pending sign-in to the store, before its URL is shown, for a
    /// browser's return that reaches another replica; only when replicas share the store. Returns its name.
    private func shareSignIn(_ context: SignInContext) async -> String? {
        guard let replicaStore else { return nil }
        let name = SignInContext.sharedName(forState: context.state)
        do {
            try await replicaStore.write(name, context.document.serialized())
            return name
        } catch {
            logger.warning("cannot share the sign-in with the other replicas: \(error)")
            return nil
        }
    }

    private func forgetSharedSignIn() {
        guard let name = sharedSignIn else { return }
        sharedSignIn = nil
        try? credentials.secrets.remove(name)
    }

    private func startFlow(generation: Int) async throws(OAuthError) -> String {
        loadIfNeeded()
        let discovery = MetadataDiscovery(http: http, policy: policy)
        let discovered = try await discovery.discover(server: server, challenge: challenge)
        try ensureCurrent(generation)
        var challenged = challenge?.scopes
        if let stepUpScopes { challenged = ScopeSelection.union(challenged ?? [], stepUpScopes) }
        let scopes = ScopeSelection.select(
            challenged: challenged,
            configured: configuration.scopes,
            previous: tokens?.scopes,
            supported: discovered.resourceMetadata?.scopesSupported
        )
        let client = try await client(for: discovered.server, scopes: scopes, generation: generation)
        try ensureCurrent(generation)

        let pkce = PKCE()
        let endpoint = try policy.check(discovered.server.authorizationEndpoint, purpose: "the authorization endpoint")
        let request = AuthorizationRequest(
            endpoint: endpoint,
            clientID: client.clientID,
            redirectURI: configuration.redirectURI,
            scopes: scopes,
            state: SecureRandom.token(),
            codeChallenge: pkce.challenge,
            resource: discovered.resource
        )
        let expiresAt = clock.now() + OAuthCallbackRouter.flowLifetime
        let context = SignInContext(
            serverID: serverID,
            state: request.state,
            tokenEndpoint: discovered.server.tokenEndpoint,
            resource: discovered.resource,
            issuer: discovered.server.issuer,
            issuerRequired: discovered.server.sendsIssuerInResponse,
            client: client,
            redirectURI: configuration.redirectURI,
            verifier: pkce.verifier,
            scopes: scopes,
            expiresAt: expiresAt
        )
        let serverID = serverID
        let flow = PendingAuthorization(
            serverID: serverID,
            state: request.state,
            issuer: discovered.server.issuer,
            issuerRequired: discovered.server.sendsIssuerInResponse,
            expiresAt: expiresAt,
            redeem: { [weak self] code in
                guard let self else { return .failed(serverID: serverID, reason: "the gateway stopped") }
                return await self.redeem(code, context, generation: generation)
            },
            abandon: { [weak self] reason in await self?.abandon(reason, generation: generation) }
        )
        let shared = await shareSignIn(context)
        // No suspension between this check and the registration: a newer sign-in cannot slip in between.
        do {
            try ensureCurrent(generation)
        } catch {
            if let shared { try? credentials.secrets.remove(shared) }
            throw error
        }
        _ = router.register(flow)
        sharedSignIn = shared
        setProgress(.waitingForUser(authorizationURL: request.url, expiresAt: expiresAt))
        scheduleExpiry()
        return request.url
    }

    /// The client to sign in as: the configured one, else the client ID metadata document when the server
    /// takes one, else a stored dynamic registration made for this issuer,
    /// redirect URI and scopes, else a new dynamic registration (stored, so restarts keep the same client and
    /// redirect URI).
    private func client(
        for metadata: AuthorizationServerMetadata,
        scopes: [String]?,
        generation: Int
    ) async throws(OAuthError) -> ClientRegistration {
        let redirectURI = configuration.redirectURI
        if let clientID = configuration.clientID {
            let client = ClientRegistration.configured(
                clientID: clientID,
                clientSecret: configuration.clientSecret,
                server: metadata,
                redirectURI: redirectURI
            )
            // Remember the authentication method for refreshes; the secret stays in the config.
            var record = client
            record.clientSecret = nil
            do {
                try credentials.saveRegistration(record)
            } catch {
                logger.warning("cannot store the OAuth client settings: \(error.message)")
            }
            return client
        }
        // CIMD before registering (the spec's order): the document's URL is the client_id, nothing to store.
        if let documentURL = configuration.clientMetadataURL, metadata.acceptsClientIDMetadataDocuments {
            return .metadataDocument(documentURL, issuer: metadata.issuer, redirectURI: redirectURI)
        }
        if let stored = try credentials.loadRegistration(), stored.isDynamic,
            stored.isUsable(issuer: metadata.issuer, redirectURI: redirectURI, scopes: scopes, at: clock.now())
        {
            return stored
        }
        guard let registrationEndpoint = metadata.registrationEndpoint else {
            throw OAuthError(
                .registration,
                "the authorization server \(metadata.issuer) offers no dynamic client registration"
                    + (configuration.clientMetadataURL == nil ? "" : " and takes no client ID metadata document")
                    + "; set auth.clientId (and auth.clientSecret if it has one) for server \(serverID)"
            )
        }
        let endpoint = try policy.check(registrationEndpoint, purpose: "the registration endpoint")
        setProgress(.registering)
        let registration = try await DynamicClientRegistration(http: http, clientName: configuration.clientName)
            .register(at: endpoint.description, server: metadata, redirectURI: redirectURI, scopes: scopes)
        do {
            try credentials.saveRegistration(registration)
        } catch {
            logger.warning(
                "cannot store the OAuth client registration; the next sign-in registers again: \(error.message)"
            )
        }
        try ensureCurrent(generation)
        return registration
    }

    /// The browser came back with a code for the flow of `generation`: exchange it and keep the tokens.
    private func redeem(_ code: String, _ context: SignInContext, generation: Int) async -> OAuthCallbackResult {
        guard generation == signInGeneration else {
            return .failed(serverID: serverID, reason: "this sign-in was replaced by a newer one")
        }
        expiryTask?.cancel()
        expiryTask = nil
        forgetSharedSignIn()
        setProgress(.exchangingCode)
        let endpoint = TokenEndpoint(http: http, url: context.tokenEndpoint, client: context.client)
        let response: TokenResponse
        do {
            response = try await endpoint.exchange(
                code: code,
                verifier: context.verifier,
                redirectURI: context.redirectURI,
                resource: context.resource
            )
        } catch {
            if context.client.isDynamic && error.kind == .refused && error.serverCode == "invalid_client" {
                forgetRegistration(context.client.clientID)
            }
            if generation == signInGeneration { setProgress(.failed(reason: error.message)) }
            return .failed(serverID: serverID, reason: error.message)
        }
        guard generation == signInGeneration else {
            return .failed(serverID: serverID, reason: "the sign-in was cancelled while the code was exchanged")
        }
        let now = clock.now()
        // The client travels with the tokens (a configured secret stays in the config).
        var client = context.client
        if !client.isDynamic { client.clientSecret = nil }
        adopt(
            OAuthTokens(
                accessToken: response.accessToken,
                refreshToken: response.refreshToken,
                scopes: response.scopes ?? context.scopes,
                issuedAt: now,
                expiresAt: response.expiresIn.map { now + $0 },
                resource: context.resource,
                issuer: context.issuer,
                tokenEndpoint: context.tokenEndpoint,
                clientID: context.client.clientID,
                client: client
            )
        )
        requestedScopes = context.scopes
        stepUpScopes = nil
        setProgress(.complete)
        return .signedIn(serverID: serverID)
    }

    /// The flow of `generation` ended without a code.
    private func abandon(_ reason: String, generation: Int) {
        guard generation == signInGeneration, progress.isSigningIn else { return }
        expiryTask?.cancel()
        expiryTask = nil
        forgetSharedSignIn()
        setProgress(.failed(reason: reason))
    }

    /// Sweeps the router once this flow's time is up, so an abandoned sign-in ends as `failed` by itself.
    private func scheduleExpiry() {
        expiryTask?.cancel()
        let router = router
        expiryTask = Task {
            try? await Task.sleep(for: .seconds(OAuthCallbackRouter.flowLifetime) + .milliseconds(500))
            guard !Task.isCancelled else { return }
            await router.removeExpired()
        }
    }

    private func ensureCurrent(_ generation: Int) throws(OAuthError) {
        guard generation == signInGeneration else {
            throw OAuthError(.cancelled, "the sign-in of server \(serverID) was replaced or cancelled")
        }
    }
}
