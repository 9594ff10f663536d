import YrdenConfig
import YrdenOAuth
import YrdenTransport

extension Gateway {
    /// Starts (or restarts) the OAuth sign-in of server `id` and makes sure the server is being connected,
    /// so it comes up as soon as the user has signed in. Returns the progress, with the authorization URL.
    package func startSignIn(_ id: String) async throws(ControlError) -> OAuthProgress {
        let session = try oauthSession(id)
        do {
            _ = try await session.beginSignIn()
        } catch {
            // The failure is in the progress (failed, with the reason) the caller gets back.
        }
        if let spec = snapshot.links[id]?.spec, !spec.disabled, !supervisors.isRunning(id) {
            try connectServer(id)
        }
        return await session.progress
    }

    /// Finishes a sign-in from the URL the browser was redirected to (pasted by an operator whose browser
    /// runs on another machine).
    package func completeSignIn(_ id: String, redirectURL: String) async throws(ControlError) -> OAuthCallbackResult {
        _ = try oauthSession(id)
        guard let router = connector.oauth?.router else { throw .conflict("OAuth is not set up in this gateway") }
        return await router.handleCallback(url: redirectURL, serverID: id)
    }

    /// The browser's return to `/oauth/callback`: the flow named by its `state` takes the code.
    package func handleOAuthCallback(query: [String: String]) async -> OAuthCallbackResult {
        guard let router = connector.oauth?.router else {
            return .rejected(reason: "OAuth is not set up in this gateway")
        }
        return await router.handleCallback(query: query)
    }

    /// Signs server `id` out: its tokens leave memory and disk, and it reconnects through a new sign-in.
    package func signOut(_ id: String) async throws(ControlError) {
        let session = try oauthSession(id)
        do { try await session.clearTokens() } catch {
            throw .conflict("could not remove the tokens: \(error.message)")
        }
        if supervisors.isRunning(id) { try await restartServer(id) }
    }

    /// Where server `id`'s sign-in stands, without starting anything.
    package func signInProgress(_ id: String) async -> OAuthProgress? {
        await oauth.existing(id)?.progress
    }

    private func oauthSession(_ id: String) throws(ControlError) -> OAuthSession {
        guard let spec = snapshot.links[id]?.spec else { throw .unknownServer(id) }
        let session: OAuthSession?
        do { session = try oauth.session(for: spec, gateway: self) } catch { throw .conflict(error.message) }
        guard let session else { throw .conflict("server \(id) does not use OAuth") }
        return session
    }
}
