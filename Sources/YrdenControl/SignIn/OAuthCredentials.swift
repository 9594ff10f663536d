import Logging
import Synchronization
import YrdenConfig
import YrdenEngine
import YrdenOAuth
import YrdenStorage
import YrdenTransport

/// The sign-ins of OAuth servers, as the engine reaches them: one ``OAuthSession`` per server, kept across
/// reconnects (its tokens and pending sign-in live there) and replaced only when the server's OAuth settings
/// change.
package final class OAuthCredentials: UpstreamCredentials {
    /// The one router every pending sign-in is registered with; the front's callback hands it each return.
    package let router: OAuthCallbackRouter
    /// Where tokens and client registrations are kept (the data directory, sealed when a key is set).
    let secrets: any SecretStore
    /// Where authorization servers send the browser back: the gateway's own `/oauth/callback`.
    let redirectURI: String
    /// How the OAuth client reaches authorization servers (the shared upstream HTTP client).
    let http: OAuthHTTP
    let clock: OAuthClock
    /// Where refreshes take turns with the other replicas sharing `secrets`; nil when none do.
    let replicaStore: (any OAuthReplicaStore)?
    let logger: Logger

    private struct Entry {
        var configuration: OAuthSessionConfiguration
        var session: OAuthSession
        var feed: ProgressFeed
    }

    private let sessions = Mutex<[String: Entry]>([:])
    /// The per-user sign-ins of `perUser` servers, by their own server id (`OAuthSessionConfiguration.perUserID`):
    /// at most ``maxUserSessions``.
    let userSessions = Mutex<[String: (configuration: OAuthSessionConfiguration, session: OAuthSession)]>([:])
    /// Each token-exchange server's exchanger, replaced when its settings change.
    private let exchanges = Mutex<[String: (settings: TokenExchange.Settings, exchange: TokenExchange)]>([:])
    /// Servers whose session has a reload of its stored tokens queued: one task per server at most.
    private let reloads = Mutex<Set<String>>([])
    /// The gateway's own links to users' pending sign-ins (`/oauth/sign-in/<id>`).
    let links: SignInLinks
    /// Told the elicitation id of each user's sign-in that completes (``onUserSignedIn(_:)``).
    let userSignedIn = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// Starts the span of a server's own token refresh, by server id (``traceRefreshes(_:)``).
    private let refreshSpans = Mutex<(@Sendable (String) -> Gateway.RefreshSpanEnd?)?>(nil)

    package init(
        router: OAuthCallbackRouter,
        secrets: any SecretStore,
        redirectURI: String,
        http: OAuthHTTP,
        clock: OAuthClock = .system,
        replicaStore: (any OAuthReplicaStore)? = nil,
        logger: Logger
    ) {
        self.router = router
        self.secrets = secrets
        self.redirectURI = redirectURI
        self.http = http
        self.clock = clock
        self.replicaStore = replicaStore
        self.logger = logger
        links = SignInLinks(
            redirectURI: redirectURI,
            shared: replicaStore.map { SignInLinks.Shared(secrets: secrets, store: $0) }
        )
        if replicaStore != nil {
            router.lookElsewhere { [weak self] state in await self?.signInStartedElsewhere(state: state) }
        }
    }

    /// The sign-in another replica started under `state`, from the store: the browser's return reached this
    /// replica instead (a balancer in front sends it to any).
    private func signInStartedElsewhere(state: String) async -> PendingAuthorization? {
        let sessions =
            sessions.withLock { $0.values.map(\.session) } + userSessions.withLock { $0.values.map(\.session) }
        for session in sessions {
            if let flow = await session.signInStartedElsewhere(state: state) { return flow }
        }
        return nil
    }

    package func signIn(
        for spec: ServerSpec,
        report: @escaping @Sendable (SignInStatus) -> Void
    ) throws(UpstreamError) -> (any UpstreamSignIn)? {
        try signIn(for: spec, onProgress: { report(SignInStatus($0)) })
    }

    /// ``signIn(for:report:)`` with the OAuth client's own progress.
    func signIn(
        for spec: ServerSpec,
        onProgress: @escaping @Sendable (OAuthProgress) -> Void
    ) throws(UpstreamError) -> OAuthSignIn? {
        guard let (url, _) = Self.oauth(of: spec), let entry = try entry(for: spec) else { return nil }
        entry.feed.attach(onProgress)
        return OAuthSignIn(session: entry.session, feed: entry.feed, url: url, logger: logger)
    }

    package func forget(_ id: String) {
        _ = exchanges.withLock { $0.removeValue(forKey: id) }
        let session = sessions.withLock { $0.removeValue(forKey: id)?.session }
        // Ends the pending flow so its `state` stops working; nobody waits for it.
        if let session { Task { await session.cancelSignIn() } }
    }

    /// Another replica sharing the store changed the secret `name`: when it is a server's tokens, that
    /// server's session takes them in (a sign-in, refresh or sign-out made through any replica holds for all).
    /// Changes arriving while a reload is queued are read by it.
    package func secretChanged(_ name: String) {
        let prefix = "oauth."
        let suffix = ".tokens"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return }
        let id = String(name.dropFirst(prefix.count).dropLast(suffix.count))
        guard let session = existing(id), reloads.withLock({ $0.insert(id).inserted }) else { return }
        // Off the store's change feed, which must not wait for the session's actor.
        Task {
            _ = reloads.withLock { $0.remove(id) }
            await session.storedTokensChanged()
        }
    }

    /// Server `spec`'s session (made now if there is none, or if its OAuth settings changed), or `nil` when the
    /// server does not use OAuth.
    package func session(for spec: ServerSpec) throws(UpstreamError) -> OAuthSession? {
        try entry(for: spec)?.session
    }

    /// The session of server `id` (or of one user's sign-in to a `perUser` server) if one was made.
    package func existing(_ id: String) -> OAuthSession? {
        sessions.withLock { $0[id]?.session } ?? userSessions.withLock { $0[id]?.session }
    }

    /// How many sign-in waits follow server `id`'s progress.
    func waitCount(for id: String) -> Int {
        sessions.withLock { $0[id]?.feed }?.waitCount ?? 0
    }

    private func entry(for spec: ServerSpec) throws(UpstreamError) -> Entry? {
        guard let (url, settings) = Self.oauth(of: spec) else { return nil }
        let configuration = configuration(id: spec.id, url: url, settings: settings)
        // Made under the lock (the initializer does no I/O), so two connections never get two sessions.
        let outcome = sessions.withLock { sessions -> Result<(Entry, replaced: OAuthSession?), OAuthError> in
            if let existing = sessions[spec.id], existing.configuration == configuration {
                return .success((existing, nil))
            }
            let feed = ProgressFeed()
            do throws(OAuthError) {
                let id = spec.id
                let session = try makeSession(
                    configuration,
                    onProgress: { feed.publish($0) },
                    refreshWatch: { [weak self] in self?.refreshStarted(id) }
                )
                let entry = Entry(configuration: configuration, session: session, feed: feed)
                defer { sessions[spec.id] = entry }
                return .success((entry, sessions[spec.id]?.session))
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let (entry, replaced)):
            // The old settings' pending flow must stop answering; nobody waits for it.
            if let replaced { Task { await replaced.cancelSignIn() } }
            return entry
        case .failure(let error):
            throw UpstreamError(.auth, error.message)
        }
    }

    package func exchangedToken(for spec: ServerSpec, callerToken: String) async throws(UpstreamError) -> String {
        let exchange = try exchange(for: spec)
        do {
            return try await exchange.token(for: callerToken)
        } catch {
            throw UpstreamError(.auth, error.message)
        }
    }

    /// Server `spec`'s exchanger (made now if there is none, or if its settings changed).
    /// The settings of sign-in `id` (a server's, or one user's of a perUser server) to the server at `url`.
    func configuration(id: String, url: String, settings: OAuthSpec) -> OAuthSessionConfiguration {
        OAuthSessionConfiguration(
            serverID: id,
            serverURL: url,
            redirectURI: redirectURI,
            scopes: settings.scopes,
            clientID: settings.clientId,
            clientSecret: settings.clientSecret,
            clientMetadataURL: settings.clientMetadataURL
        )
    }

    /// A session with this gateway's HTTP client, secrets, callback router and store. No I/O: callers make it
    /// under their lock.
    func makeSession(
        _ configuration: OAuthSessionConfiguration,
        onProgress: @escaping @Sendable (OAuthProgress) -> Void = { _ in },
        refreshWatch: OAuthRefreshWatch? = nil
    ) throws(OAuthError) -> OAuthSession {
        try OAuthSession(
            configuration: configuration,
            http: http,
            secrets: secrets,
            router: router,
            clock: clock,
            replicaStore: replicaStore,
            logger: logger,
            onProgress: onProgress,
            refreshWatch: refreshWatch
        )
    }

    /// Each server's own token refreshes become spans started by `start` (``Gateway/startRefreshSpan(server:)``).
    /// A user's refresh is not: the call it happens in makes its span.
    package func traceRefreshes(_ start: @escaping @Sendable (String) -> Gateway.RefreshSpanEnd?) {
        refreshSpans.withLock { $0 = start }
    }

    /// A refresh of server `id`'s tokens starts: its span's end, told the refresh's outcome.
    private func refreshStarted(_ id: String) -> (@Sendable (OAuthError?) -> Void)? {
        guard let end = refreshSpans.withLock({ $0 })?(id) else { return nil }
        return { failure in
            switch failure?.kind {
            case nil: end("ok", nil, "")
            case .needsSignIn?: end("sign_in_needed", nil, "")
            case .cancelled?: end("cancelled", nil, "")
            case let kind?: end("error", kind.rawValue, failure?.message ?? "")
            }
        }
    }

    private func exchange(for spec: ServerSpec) throws(UpstreamError) -> TokenExchange {
        guard case .http(let url, _, .tokenExchange(let configured), _) = spec.transport else {
            throw UpstreamError(.auth, "server \(spec.id) does not exchange tokens")
        }
        let settings = TokenExchange.Settings(
            tokenEndpoint: configured.tokenEndpoint,
            clientID: configured.clientId,
            clientSecret: configured.clientSecret,
            audience: configured.audience,
            resource: configured.resource ?? url,
            scopes: configured.scopes
        )
        let made = exchanges.withLock { exchanges -> Result<TokenExchange, OAuthError> in
            if let existing = exchanges[spec.id], existing.settings == settings { return .success(existing.exchange) }
            do throws(OAuthError) {
                let exchange = try TokenExchange(settings: settings, serverURL: url, http: http, clock: clock)
                exchanges[spec.id] = (settings, exchange)
                return .success(exchange)
            } catch {
                return .failure(error)
            }
        }
        switch made {
        case .success(let exchange): return exchange
        case .failure(let error): throw UpstreamError(.auth, error.message)
        }
    }

    /// The URL and settings of a server that signs in with OAuth.
    package static func oauth(of spec: ServerSpec) -> (url: String, settings: OAuthSpec)? {
        guard let settings = spec.transport.oauthSettings else { return nil }
        switch spec.transport {
        case .http(let url, _, _, _), .sse(let url, _, _): return (url, settings)
        // OAuth names resources by their http(s) URL (RFC 9728, RFC 8707): the WebSocket URL's own origin.
        case .websocket(let url, _, _): return (url.webSocketAsHTTP, settings)
        case .stdio: return nil
        }
    }
}

extension String {
    /// `ws://…` as `http://…` and `wss://…` as `https://…`; any other text unchanged.
    fileprivate var webSocketAsHTTP: String {
        if lowercased().hasPrefix("wss://") { return "https://" + dropFirst(6) }
        if lowercased().hasPrefix("ws://") { return "http://" + dropFirst(5) }
        return self
    }
}
