import YrdenConfig
import YrdenTransport

/// What the engine needs of servers that sign in (OAuth), provided by the control layer, so the engine
/// imports neither the OAuth client nor the token store.
package protocol UpstreamCredentials: Sendable {
    /// Server `spec`'s sign-in, or `nil` when it does not sign in. `report` hears every change of its progress
    /// (the engine publishes it in the server's status). Throws an `.auth` error when the server should sign
    /// in but cannot in this gateway.
    func signIn(
        for spec: ServerSpec,
        report: @escaping @Sendable (SignInStatus) -> Void
    ) throws(UpstreamError) -> (any UpstreamSignIn)?

    /// Server `id` is gone: its pending sign-in is cancelled (its stored tokens stay on disk).
    func forget(_ id: String)

    /// A token for server `spec` (`"auth": {"type": "tokenExchange"}`) standing for the holder of
    /// `callerToken`, exchanged at the configured endpoint or still held from an earlier exchange.
    func exchangedToken(for spec: ServerSpec, callerToken: String) async throws(UpstreamError) -> String

    /// The `Authorization` for a call of `user` to server `spec` (`"perUser": true`): that user's own token,
    /// or, when the user has not signed in to it yet, the gateway's link to a sign-in started for them.
    func userAuthorization(for spec: ServerSpec, user: String) async throws(UpstreamError) -> UserAuthorization

    /// Server `spec` refused `authorization` (401), which ``userAuthorization(for:user:)`` gave for `user`: the
    /// user's token is refreshed (one refresh at a time per user) and the new one returned; a refused refresh
    /// drops that user's tokens and answers with a new sign-in, as for a user not signed in.
    func userAuthorizationRefused(
        _ authorization: String,
        for spec: ServerSpec,
        user: String
    ) async throws(UpstreamError) -> UserAuthorization

    /// `handler` hears the `elicitationID` of each user's sign-in that completes (see
    /// ``UserAuthorization/signInNeeded(url:elicitationID:)``); the latest handler replaces the one before.
    func onUserSignedIn(_ handler: @escaping @Sendable (_ elicitationID: String) -> Void)
}

/// What a user's call to a per-user server goes with.
package enum UserAuthorization: Sendable, Hashable {
    /// The `Authorization` header value (`Bearer …`).
    case authorization(String)
    /// The user must sign in first, at this URL (the gateway's own link, shown to that user only);
    /// `elicitationID` names that sign-in, the same for every call of the user to the server until it completes.
    case signInNeeded(url: String, elicitationID: String)
}

extension UpstreamCredentials {
    package func exchangedToken(for spec: ServerSpec, callerToken: String) async throws(UpstreamError) -> String {
        throw UpstreamError(.auth, "this gateway cannot exchange tokens for server \(spec.id)")
    }

    package func userAuthorization(
        for spec: ServerSpec,
        user: String
    ) async throws(UpstreamError)
        -> UserAuthorization
    {
        throw UpstreamError(.auth, "this gateway keeps no per-user sign-ins for server \(spec.id)")
    }

    package func userAuthorizationRefused(
        _ authorization: String,
        for spec: ServerSpec,
        user: String
    ) async throws(UpstreamError) -> UserAuthorization {
        throw UpstreamError(.auth, "this gateway keeps no per-user sign-ins for server \(spec.id)")
    }

    package func onUserSignedIn(_ handler: @escaping @Sendable (_ elicitationID: String) -> Void) {}
}

/// One server's sign-in, as an upstream connection uses it.
package protocol UpstreamSignIn: Sendable {
    /// Returns once usable tokens are held: at once when stored ones are valid (or refresh); otherwise after
    /// the user signs in. `waiting` is called first in that case (the server then shows `authenticating`).
    /// A sign-in is started unless one is under way or the last one failed (the operator then starts the
    /// next one, so a refused consent is not asked again in a loop). Ends with `.notConnected` when cancelled.
    func ready(waiting: @Sendable () -> Void) async throws(UpstreamError)

    /// Returns when the tokens stop being usable (refresh refused, signed out, a wider scope needed), or
    /// when the calling task is cancelled. Event-driven: it costs nothing while it waits.
    func invalidated() async

    /// Signs each request in, and hears when the server refused the token.
    var authorizer: any UpstreamAuthorizer { get }
}

/// Where one server's sign-in stands, as the admin API's `AuthProgress` shows it.
package struct SignInStatus: Sendable, Hashable {
    /// `discovering`, `registering`, `waitingForUser`, `exchangingCode`, `complete`, `failed`, `needsReauth`.
    package var status: String
    /// The URL the user opens, while `waitingForUser`.
    package var authorizationURL: String?
    /// When that URL stops working, in seconds since the epoch.
    package var expiresAt: Double?
    /// Why it `failed` or `needsReauth`.
    package var reason: String?

    package init(status: String, authorizationURL: String? = nil, expiresAt: Double? = nil, reason: String? = nil) {
        self.status = status
        self.authorizationURL = authorizationURL
        self.expiresAt = expiresAt
        self.reason = reason
    }
}

extension SignInStatus {
    /// A log line for a change; the authorization URL is shown (it carries no secret), tokens never.
    package var logLine: String {
        switch status {
        case "waitingForUser": "sign-in needed: open \(authorizationURL ?? "the authorization URL")"
        case "failed": "sign-in failed: \(reason ?? "no reason given")"
        case "needsReauth": "sign-in needed: \(reason ?? "the tokens are no longer valid")"
        default: "sign-in: \(status)"
        }
    }
}
