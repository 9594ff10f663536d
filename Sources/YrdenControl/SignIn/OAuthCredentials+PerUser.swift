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
        guard let (url, settings) = Self.oauth(of: spec), settings.perUser else {
            throw UpstreamError(.auth, "server \(spec.id) has no per-user sign-ins")
        }
        let session = try userSession(for: spec, url: url, settings: settings, user: user)
        do {
            return .authorization("Bearer " + (try await session.accessToken(forRequestTo: url)))
        } catch  where error.kind == .needsSignIn {
            if case .waitingForUser(let shown, _) = await session.progress { return .signInNeeded(url: shown) }
            do {
                return .signInNeeded(url: try await session.beginSignIn())
            } catch {
                throw UpstreamError(.auth, error.message)
            }
        } catch {
            throw UpstreamError(.auth, error.message)
        }
    }

    /// User `user`'s session for server `spec`, made now if there is none or its settings changed.
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
                let session = try makeSession(configuration)
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
