import Logging
import Synchronization
import YrdenConfig
import YrdenOAuth
import YrdenTransport

/// One ``OAuthSession`` per OAuth server, kept across reconnects (its tokens and pending sign-in live there)
/// and replaced only when the server's OAuth settings change.
final class OAuthSessions: Sendable {
    private let sessions = Mutex<[String: (configuration: OAuthSessionConfiguration, session: OAuthSession)]>([:])

    /// The session for `spec`, or `nil` when the server does not use OAuth.
    func session(for spec: ServerSpec, gateway: Gateway) throws(UpstreamError) -> OAuthSession? {
        guard let (url, settings) = Self.oauth(of: spec) else { return nil }
        guard let environment = gateway.connector.oauth else {
            throw UpstreamError(.auth, "this gateway was started without OAuth support")
        }
        let configuration = OAuthSessionConfiguration(
            serverID: spec.id,
            serverURL: url,
            redirectURI: environment.redirectURI,
            scopes: settings.scopes,
            clientID: settings.clientId,
            clientSecret: settings.clientSecret
        )
        if let existing = sessions.withLock({ $0[spec.id] }), existing.configuration == configuration {
            return existing.session
        }
        let session: OAuthSession
        do {
            session = try OAuthSession(
                configuration: configuration,
                http: environment.http,
                secrets: environment.secrets,
                router: environment.router,
                logger: gateway.logger,
                onProgress: { [weak gateway] progress in
                    gateway?.publish(spec.id) { $0.auth = progress }
                    gateway?.logRing(spec.id)?.append(Self.describe(progress), level: .notice, event: "auth")
                }
            )
        } catch {
            throw UpstreamError(.auth, error.message)
        }
        let replaced = sessions.withLock { sessions in
            defer { sessions[spec.id] = (configuration, session) }
            return sessions[spec.id]?.session
        }
        if let replaced { Task { await replaced.cancelSignIn() } }
        return session
    }

    /// The session of server `id` if one was made.
    func existing(_ id: String) -> OAuthSession? {
        sessions.withLock { $0[id]?.session }
    }

    func remove(_ id: String) {
        let session = sessions.withLock { $0.removeValue(forKey: id)?.session }
        if let session { Task { await session.cancelSignIn() } }
    }

    /// The URL and settings of a server that signs in with OAuth.
    static func oauth(of spec: ServerSpec) -> (url: String, settings: OAuthSpec)? {
        switch spec.transport {
        case .http(let url, _, .oauth(let settings), _), .sse(let url, _, .oauth(let settings)):
            (url, settings)
        default:
            nil
        }
    }

    /// A log line for a progress change; the authorization URL is shown (it carries no secret), tokens never.
    static func describe(_ progress: OAuthProgress) -> String {
        switch progress {
        case .waitingForUser(let url, _): "sign-in needed: open \(url)"
        case .failed(let reason): "sign-in failed: \(reason)"
        case .needsReauth(let reason): "sign-in needed: \(reason)"
        default: "sign-in: \(progress.status)"
        }
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
