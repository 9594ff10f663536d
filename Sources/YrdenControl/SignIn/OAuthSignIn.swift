import Logging
import YrdenEngine
import YrdenOAuth
import YrdenTransport

/// One OAuth server's sign-in as its upstream connection uses it. Both waits follow the session's progress
/// changes (``ProgressFeed``): they cost nothing while nothing changes.
struct OAuthSignIn: UpstreamSignIn {
    let session: OAuthSession
    let feed: ProgressFeed
    let url: String
    let logger: Logger

    var authorizer: any UpstreamAuthorizer { OAuthAuthorizer(session: session, url: url) }

    func ready(waiting: @Sendable () -> Void) async throws(UpstreamError) {
        // Followed before anything is read, so a change between the read and the wait is not missed.
        let changes = feed.changes()
        await session.prepare()
        feed.introduce(await session.progress)
        guard await !Self.isReady(session) else { return }
        waiting()
        let progress = await session.progress
        if !progress.isSigningIn, !Self.isFailure(progress) {
            do {
                let url = try await session.beginSignIn()
                logger.notice(
                    "sign-in needed",
                    metadata: ["yrden.upstream": "\(session.serverID)", "authorizationURL": "\(url)"]
                )
            } catch {
                logger.warning(
                    "could not start the sign-in",
                    metadata: ["yrden.upstream": "\(session.serverID)", "reason": "\(error.message)"]
                )
            }
        }
        var next = changes.makeAsyncIterator()
        while await !Self.isReady(session) {
            guard !Task.isCancelled, await next.next() != nil else {
                throw UpstreamError(.notConnected, "the server was stopped")
            }
        }
    }

    func invalidated() async {
        let changes = feed.changes()
        var next = changes.makeAsyncIterator()
        while await Self.isReady(session) {
            guard await next.next() != nil else { return }
        }
        logger.warning(
            "the server's OAuth tokens are no longer valid; signing in again",
            metadata: ["yrden.upstream": "\(session.serverID)"]
        )
    }

    /// Tokens held and nothing asking for another sign-in: not a refused refresh, not a wider scope the
    /// server demanded (step-up: the old tokens stay until the new sign-in replaces them).
    static func isReady(_ session: OAuthSession) async -> Bool {
        guard await session.hasTokens else { return false }
        return await session.progress == .complete
    }

    private static func isFailure(_ progress: OAuthProgress) -> Bool {
        if case .failed = progress { return true }
        return false
    }
}

/// The transport's view of an OAuth session: a bearer token per request, and a second chance after a 401.
struct OAuthAuthorizer: UpstreamAuthorizer {
    let session: OAuthSession
    let url: String

    func authorization() async throws(UpstreamError) -> String {
        do {
            return "Bearer \(try await session.accessToken(forRequestTo: url))"
        } catch {
            throw UpstreamError(.auth, error.message)
        }
    }

    func rejected(_ used: String, status: Int, challenge: String?) async -> Bool {
        let token = used.hasPrefix("Bearer ") ? String(used.dropFirst(7)) : used
        if status == 403 {
            _ = await session.handleForbidden(challenge: challenge)
            return false
        }
        return await session.handleUnauthorized(challenge: challenge, rejectedToken: token)
    }
}
