import Synchronization
import YrdenConfig
import YrdenEngine
import YrdenOAuth
import YrdenTransport

/// `"auth": {"type": "oauth", "perUser": true}`: one sign-in per (Yrden user, server).
///
/// Each user's sign-in is an ``OAuthSession`` of its own, under the server id `<id>.user-<16 hex>` (the first
/// 8 bytes of the user's SHA-256: a user name may hold characters a secret's name may not, and it is not
/// shown in file names), so its tokens and client registration are stored, sealed and refreshed apart from
/// every other user's and from the server's own sign-in, in the file store or the shared store alike.
extension OAuthCredentials {
    /// Sessions beyond this many are dropped (oldest id first, its tokens kept in the store): a user whose
    /// session was dropped gets one again, loaded from the store, at their next call.
    static let maxUserSessions = 4096

    package func userAuthorization(
        for spec: ServerSpec,
        user: String
    ) async throws(UpstreamError)
        -> UserAuthorization
    {
        let (url, session) = try userSession(for: spec, user: user)
        do {
            return .authorization("Bearer " + (try await session.accessToken(forRequestTo: url)))
        } catch  where error.kind == .needsSignIn {
            return try await signInNeeded(session)
        } catch {
            throw UpstreamError(.auth, error.message)
        }
    }

    package func userAuthorizationRefused(
        _ authorization: String,
        for spec: ServerSpec,
        user: String
    ) async throws(UpstreamError) -> UserAuthorization {
        let (_, session) = try userSession(for: spec, user: user)
        let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : authorization
        // One refresh per user however many of their calls were refused: the session's refresh is single
        // flight, and a call refused with a token already replaced just takes the new one.
        if await session.handleUnauthorized(challenge: nil, rejectedToken: token) {
            return try await userAuthorization(for: spec, user: user)
        }
        guard await !session.hasTokens else {
            throw UpstreamError(.auth, "the server refused the user's token, and it could not be refreshed now")
        }
        return try await signInNeeded(session)
    }

    package func onUserSignedIn(_ handler: @escaping @Sendable (_ elicitationID: String) -> Void) {
        userSignedIn.withLock { $0 = handler }
    }

    /// The elicitation id of user sign-in `sessionID` (`<server>.user-<16 hex>`): stable per user and server.
    static func elicitationID(_ sessionID: String) -> String { "yrden-sign-in-" + sessionID }

    /// The user's pending sign-in (started now unless one waits for the browser), as the gateway's link to it.
    private func signInNeeded(_ session: OAuthSession) async throws(UpstreamError) -> UserAuthorization {
        var pending = await session.progress
        if case .waitingForUser = pending {
        } else {
            do {
                let started = try await session.beginSignIn()
                pending = await session.progress
                if case .waitingForUser = pending {
                } else {
                    // Replaced or finished meanwhile: the link checks where the sign-in stands when opened.
                    pending = .waitingForUser(authorizationURL: started, expiresAt: clock.now() + 600)
                }
            } catch {
                throw UpstreamError(.auth, error.message)
            }
        }
        guard case .waitingForUser(let authorizationURL, let expiresAt) = pending else {
            throw UpstreamError(.auth, "the sign-in of \(session.serverID) could not be started")
        }
        let link = links.link(for: session, authorizationURL: authorizationURL, expiresAt: expiresAt, now: clock.now())
        return .signInNeeded(url: link, elicitationID: Self.elicitationID(session.serverID))
    }

    /// User `user`'s session for server `spec`, made now if there is none or its settings changed.
    private func userSession(for spec: ServerSpec, user: String) throws(UpstreamError) -> (String, OAuthSession) {
        guard let (url, settings) = Self.oauth(of: spec), settings.perUser else {
            throw UpstreamError(.auth, "server \(spec.id) has no per-user sign-ins")
        }
        return (url, try userSession(for: spec, url: url, settings: settings, user: user))
    }

    private func userSession(
        for spec: ServerSpec,
        url: String,
        settings: OAuthSpec,
        user: String
    ) throws(UpstreamError) -> OAuthSession {
        let id = OAuthSessionConfiguration.perUserID(server: spec.id, user: user)
        let configuration = configuration(id: id, url: url, settings: settings)
        let made = userSessions.withLock { sessions -> Result<(OAuthSession, dropped: [OAuthSession]), OAuthError> in
            if let existing = sessions[id], existing.configuration == configuration {
                return .success((existing.session, []))
            }
            do throws(OAuthError) {
                let elicitationID = Self.elicitationID(id)
                let session = try makeSession(configuration) { [weak self] progress in
                    // Whoever was shown this sign-in's elicitation may retry now (`elicitation/complete`).
                    if progress == .complete { self?.userSignedIn.withLock { $0 }?(elicitationID) }
                }
                var dropped = sessions[id].map { [$0.session] } ?? []
                while sessions.count >= Self.maxUserSessions, let oldest = sessions.keys.min() {
                    dropped += sessions.removeValue(forKey: oldest).map { [$0.session] } ?? []
                }
                sessions[id] = (configuration, session)
                return .success((session, dropped))
            } catch {
                return .failure(error)
            }
        }
        switch made {
        case .success(let (session, dropped)):
            // A dropped session's pending sign-in must stop answering; nobody waits for it.
            for old in dropped { Task { await old.cancelSignIn() } }
            return session
        case .failure(let error):
            throw UpstreamError(.auth, error.message)
        }
    }
}
