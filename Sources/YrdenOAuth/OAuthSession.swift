import Logging
import YrdenStorage

/// One server's OAuth: its tokens, its sign-in, its refreshes. The engine holds one per OAuth server.
///
/// The transport asks ``accessToken(forRequestTo:)`` before each request and reports a 401 or 403 with its
/// `WWW-Authenticate` header (``handleUnauthorized(challenge:rejectedToken:)``,
/// ``handleForbidden(challenge:)``). An operator starts a sign-in with ``beginSignIn()``; the browser's return
/// reaches the session through the shared ``OAuthCallbackRouter``. Progress is reported through `onProgress`
/// on every change, and is readable as ``progress``.
///
/// An actor, so the token state has one owner. Every step that awaits re-checks a generation counter
/// afterwards: a sign-out or a newer sign-in during a network call wins over the older operation's result.
package actor OAuthSession {
    package nonisolated let serverID: String
    let configuration: OAuthSessionConfiguration
    let server: OAuthURL
    let policy: URLPolicy
    let http: OAuthHTTP
    let credentials: OAuthCredentialStore
    let router: OAuthCallbackRouter
    let clock: OAuthClock
    /// Where refreshes take turns with other replicas sharing the tokens; nil without a shared store.
    let replicaStore: (any OAuthReplicaStore)?
    let logger: Logger
    private let onProgress: @Sendable (OAuthProgress) -> Void
    /// Told when a refresh of the tokens starts; what it returns is told how the refresh ended.
    let refreshWatch: OAuthRefreshWatch?

    /// Where the server's OAuth stands.
    package private(set) var progress: OAuthProgress = .needsReauth(reason: "not signed in yet")

    /// The tokens in use; nil when there are none (or before ``loadIfNeeded()``).
    var tokens: OAuthTokens?
    var loaded = false
    /// Bumped whenever `tokens` is replaced or cleared: a refresh started before that must not commit.
    var tokenGeneration = 0
    /// The refresh under way, shared by every caller that needs it (single flight).
    var refresh: Task<OAuthTokens, any Error>?

    /// Bumped by every sign-in start, cancel and sign-out: only the newest sign-in may report or commit.
    var signInGeneration = 0
    var expiryTask: Task<Void, Never>?
    /// The store's name of this replica's pending sign-in, shared for a browser's return to another replica.
    var sharedSignIn: String?
    /// The latest `Bearer` challenge the server sent (its `resource_metadata` and `scope` guide discovery).
    var challenge: BearerChallenge?
    /// The scopes a 403 `insufficient_scope` asked for; the next sign-in requests them.
    var stepUpScopes: [String]?
    /// The scopes the sign-in that got the current tokens asked for; a step-up is not repeated for these.
    var requestedScopes: [String]?

    /// - Parameters:
    ///   - secrets: where tokens and registrations are kept (the data directory's secret store).
    ///   - router: the gateway's one callback router.
    ///   - replicaStore: the turns refreshes take with other replicas sharing `secrets`; nil when none do.
    ///   - onProgress: called on every change of ``progress``, on the session's executor; keep it quick.
    ///   - refreshWatch: told of each refresh (one for all the callers that share it): tracing's span.
    package init(
        configuration: OAuthSessionConfiguration,
        http: OAuthHTTP,
        secrets: any SecretStore,
        router: OAuthCallbackRouter,
        clock: OAuthClock = .system,
        replicaStore: (any OAuthReplicaStore)? = nil,
        logger: Logger,
        onProgress: @escaping @Sendable (OAuthProgress) -> Void = { _ in },
        refreshWatch: OAuthRefreshWatch? = nil
    ) throws(OAuthError) {
        guard let server = OAuthURL(configuration.serverURL) else {
            throw OAuthError(.insecureURL, "the URL of server \(configuration.serverID) is not an http(s) URL")
        }
        guard OAuthURL(configuration.redirectURI) != nil else {
            throw OAuthError(.insecureURL, "the OAuth redirect URI \(configuration.redirectURI) is not an http(s) URL")
        }
        serverID = configuration.serverID
        self.configuration = configuration
        self.server = server
        policy = URLPolicy(serverHost: server.host)
        self.http = http
        credentials = OAuthCredentialStore(secrets: secrets, serverID: configuration.serverID)
        self.router = router
        self.clock = clock
        self.replicaStore = replicaStore
        var logger = logger
        logger[metadataKey: "yrden.upstream"] = .string(configuration.serverID)
        self.logger = logger
        self.onProgress = onProgress
        self.refreshWatch = refreshWatch
    }

    /// Whether the session holds tokens (loading them from the store first).
    package var hasTokens: Bool {
        loadIfNeeded()
        return tokens != nil
    }

    /// The scopes the current tokens carry, when known.
    package var grantedScopes: [String]? {
        loadIfNeeded()
        return tokens?.scopes
    }

    /// Loads the stored tokens, then refreshes them if they have expired: what the gateway does for each
    /// OAuth server at startup. Returns the resulting progress (`complete` or `needsReauth`).
    @discardableResult
    package func prepare() async -> OAuthProgress {
        loadIfNeeded()
        guard let current = tokens else { return progress }
        if current.isExpired(at: clock.now()) {
            if current.refreshToken == nil {
                discardTokens(reason: "the stored access token expired and there is no refresh token; sign in again")
            } else {
                _ = try? await refreshedTokens()
            }
        } else {
            setProgress(.complete)
        }
        return progress
    }

    /// ``accessToken(forRequestTo:)`` as a closure, the shape a transport takes its credentials in.
    package nonisolated var tokenProvider: @Sendable (_ requestURL: String) async throws -> String {
        { [self] url in try await self.accessToken(forRequestTo: url) }
    }

    /// A valid access token for a request to `url`, which must be on the server's own origin: a token is
    /// never sent to another host (a legacy SSE server naming a message URL elsewhere, a redirect).
    package func accessToken(forRequestTo url: String) async throws(OAuthError) -> String {
        guard let target = OAuthURL(url), target.origin == server.origin else {
            throw OAuthError(
                .wrongHost,
                "refused to send the OAuth token of server \(serverID) to \(printable(url, limit: 200)): "
                    + "it was issued for \(server.origin)"
            )
        }
        return try await accessToken()
    }

    /// A valid access token for the server, refreshed first when it expires within a minute (a refresh that
    /// fails for want of an answer still returns a token that has not expired yet). Throws `needsSignIn` when
    /// there is none to be had.
    package func accessToken() async throws(OAuthError) -> String {
        loadIfNeeded()
        guard let current = tokens else { throw needsSignIn() }
        let now = clock.now()
        guard current.refreshDue(at: now) else { return current.accessToken }
        guard current.refreshToken != nil else {
            guard current.isExpired(at: now) else { return current.accessToken }
            discardTokens(reason: "the access token expired and the server gave no refresh token; sign in again")
            throw needsSignIn()
        }
        do {
            return try await refreshedTokens().accessToken
        } catch {
            let now = clock.now()
            if error.kind == .network, tokens == current, !current.isExpired(at: now) {
                return current.accessToken
            }
            // The tokens were replaced during the refresh (taken from another replica): those serve.
            if error.kind == .cancelled, let replaced = tokens, replaced != current, !replaced.isExpired(at: now) {
                return replaced.accessToken
            }
            throw error
        }
    }

    /// Signs out: forgets the tokens in memory and on disk and cancels a pending sign-in. The client
    /// registration is kept, so the next sign-in does not register again.
    package func clearTokens() throws(OAuthError) {
        cancelFlow()
        loaded = true
        tokens = nil
        tokenGeneration += 1
        refresh = nil
        stepUpScopes = nil
        requestedScopes = nil
        setProgress(.needsReauth(reason: "signed out"))
        try credentials.removeTokens()
    }

    // MARK: - Internals

    /// Reads the stored tokens the first time they are needed. Tokens stored for another URL (the server's
    /// entry now points elsewhere) are removed: they must not be sent to the new one.
    func loadIfNeeded() {
        guard !loaded else { return }
        loaded = true
        do {
            guard let stored = try credentials.loadTokens() else { return }
            guard let resource = OAuthURL(stored.resource), server.isWithin(resource) else {
                logger.warning("removing stored OAuth tokens issued for another URL than the server's")
                try credentials.removeTokens()
                return
            }
            tokens = stored
            setProgress(.complete)
        } catch {
            logger.error("cannot load stored OAuth tokens: \(error.message)")
            setProgress(.needsReauth(reason: error.message))
        }
    }

    /// Replaces the tokens and stores them. A store failure is logged, not thrown: the tokens work, and
    /// losing them at the next restart only costs a sign-in.
    func adopt(_ newTokens: OAuthTokens) {
        tokens = newTokens
        tokenGeneration += 1
        do {
            try credentials.saveTokens(newTokens)
        } catch {
            logger.error("cannot store OAuth tokens; they last until the gateway stops: \(error.message)")
        }
    }

    /// Forgets tokens that no longer work, in memory and on disk.
    func discardTokens(reason: String) {
        tokens = nil
        tokenGeneration += 1
        refresh = nil
        do {
            try credentials.removeTokens()
        } catch {
            logger.error("cannot remove stored OAuth tokens: \(error.message)")
        }
        if !progress.isSigningIn { setProgress(.needsReauth(reason: reason)) }
    }

    func needsSignIn() -> OAuthError {
        let reason = progress.reason.map { " (\($0))" } ?? ""
        return OAuthError(.needsSignIn, "server \(serverID) needs an OAuth sign-in\(reason)")
    }

    func setProgress(_ newProgress: OAuthProgress) {
        guard newProgress != progress else { return }
        progress = newProgress
        logger.info(
            "OAuth \(newProgress.status)",
            metadata: newProgress.reason.map { ["yrden.oauth.reason": .string($0)] } ?? [:]
        )
        onProgress(newProgress)
    }
}
