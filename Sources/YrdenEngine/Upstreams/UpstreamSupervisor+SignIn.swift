import Logging
import YrdenConfig
import YrdenOAuth
import YrdenTransport

extension UpstreamSupervisor {
    /// Returns once the OAuth server `session` belongs to has tokens: at once when stored ones are valid (or
    /// refresh), else after a sign-in. Without tokens the server shows `authenticating`; a sign-in is started
    /// unless one is already under way or the last one failed (then the operator starts the next one, over
    /// the admin API or `yrden login`, so a refused consent is not asked again in a loop).
    func awaitSignIn(_ session: OAuthSession) async throws(UpstreamError) {
        await session.prepare()
        guard await !Self.isReady(session) else { return }
        gateway.publish(spec.id) { $0.state = .authenticating }
        let progress = await session.progress
        if !progress.isSigningIn, !Self.isFailure(progress) {
            do {
                let url = try await session.beginSignIn()
                logger.notice("sign-in needed", metadata: ["authorizationURL": "\(url)"])
            } catch {
                logger.warning("could not start the sign-in", metadata: ["reason": "\(error.message)"])
            }
        }
        while await !Self.isReady(session) {
            guard !Task.isCancelled else { throw UpstreamError(.notConnected, "the server was stopped") }
            try? await Task.sleep(for: Self.signInPollInterval)
        }
    }

    static let signInPollInterval: Duration = .milliseconds(200)

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

    /// Closes `client` when the session is no longer ready (refresh refused, signed out, a wider scope needed),
    /// so the supervisor reconnects through a new sign-in instead of failing every call with 401.
    func watchTokens(_ session: OAuthSession, _ client: UpstreamClient) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.signInPollInterval * 2)
            if Task.isCancelled { return }
            if await !Self.isReady(session) {
                logger.warning("the server's OAuth tokens are no longer valid; signing in again")
                await shielded { await client.close() }
                return
            }
        }
    }
}
