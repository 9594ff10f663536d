import YrdenConfig
import YrdenEngine
import YrdenOAuth
import YrdenTransport

/// What operators do with OAuth sign-ins (over the admin API, `yrden login`, the browser's callback): start
/// one, finish one from a pasted redirect URL, sign out, and read where one stands.
package struct SignInControl: Sendable {
    let gateway: Gateway
    /// `nil` in a gateway built without OAuth: every operation then says so.
    let credentials: OAuthCredentials?

    package init(gateway: Gateway, credentials: OAuthCredentials?) {
        self.gateway = gateway
        self.credentials = credentials
    }

    /// The sign-ins of the credentials `gateway` was built with.
    package init(gateway: Gateway) {
        self.init(gateway: gateway, credentials: gateway.connector.credentials as? OAuthCredentials)
    }

    /// Starts (or restarts) server `id`'s sign-in and makes sure the server is being connected, so it comes up
    /// as soon as the user has signed in. Returns the progress, with the authorization URL.
    package func start(_ id: String) async throws(ControlError) -> SignInStatus {
        let (session, spec) = try session(id)
        do {
            _ = try await session.beginSignIn()
        } catch {
            // The failure is in the progress (failed, with the reason) the caller gets back.
        }
        // A server already running is left as it is: its connection is waiting for this sign-in.
        if !spec.disabled { try await gateway.lifecycle.connectServer(id) }
        return SignInStatus(await session.progress)
    }

    /// Finishes a sign-in from the URL the browser was redirected to (pasted by an operator whose browser
    /// runs on another machine); returns what became of it and where the sign-in then stands.
    package func complete(
        _ id: String,
        redirectURL: String
    ) async throws(ControlError) -> (outcome: SignInOutcome, status: SignInStatus) {
        let (session, _) = try session(id)
        guard let router = credentials?.router else { throw .conflict("OAuth is not set up in this gateway") }
        let result = await router.handleCallback(url: redirectURL, serverID: id)
        return (SignInOutcome(result), SignInStatus(await session.progress))
    }

    /// The browser's return to `/oauth/callback`: the flow named by its `state` takes the code.
    package func handleCallback(query: [String: String]) async -> SignInOutcome {
        guard let credentials else { return .rejected(reason: "OAuth is not set up in this gateway") }
        return SignInOutcome(await credentials.router.handleCallback(query: query))
    }

    /// Where the gateway's sign-in link `id` (`/oauth/sign-in/<id>`) sends the browser: the authorization URL
    /// of the user's sign-in it was made for, while that sign-in is pending; `nil` otherwise.
    package func signInLink(_ id: String) async -> String? {
        guard let credentials else { return nil }
        return await credentials.links.authorizationURL(for: id, now: credentials.clock.now())
    }

    /// Signs server `id` out: its tokens leave memory and disk, and it reconnects through a new sign-in.
    package func signOut(_ id: String) async throws(ControlError) {
        let (session, _) = try session(id)
        do { try await session.clearTokens() } catch {
            throw .conflict("could not remove the tokens: \(error.message)")
        }
        switch gateway.registry.connectionState(of: id) {
        case .disconnected?, .disabled?, .stopped?, nil: break
        default: try await gateway.lifecycle.restartServer(id)
        }
    }

    /// Where server `id`'s sign-in stands, without starting anything; `nil` when none was made.
    package func status(_ id: String) async -> SignInStatus? {
        guard let session = credentials?.existing(id) else { return nil }
        return SignInStatus(await session.progress)
    }

    private func session(_ id: String) throws(ControlError) -> (OAuthSession, ServerSpec) {
        guard let spec = gateway.registry.spec(of: id) else { throw .unknownServer(id) }
        guard let credentials else { throw .conflict("this gateway was started without OAuth support") }
        let session: OAuthSession?
        do { session = try credentials.session(for: spec) } catch { throw .conflict(error.message) }
        guard let session else { throw .conflict("server \(id) does not use OAuth") }
        return (session, spec)
    }
}

/// What became of a browser's return to the callback, for the page (or admin API answer) shown to the user.
package enum SignInOutcome: Sendable, Hashable {
    /// The code was exchanged: the server has tokens.
    case signedIn(server: String)
    /// The flow ended without tokens (refused, a check failed, the exchange failed); a new sign-in is needed.
    case failed(server: String, reason: String)
    /// The request names no pending flow, or is malformed. Nothing was changed.
    case rejected(reason: String)

    init(_ result: OAuthCallbackResult) {
        switch result {
        case .signedIn(let server): self = .signedIn(server: server)
        case .failed(let server, let reason): self = .failed(server: server, reason: reason)
        case .rejected(let reason): self = .rejected(reason: reason)
        }
    }

    /// The HTTP status for the callback page: 400 for a request that changed nothing, else 200.
    package var httpStatus: Int {
        if case .rejected = self { return 400 }
        return 200
    }
}
