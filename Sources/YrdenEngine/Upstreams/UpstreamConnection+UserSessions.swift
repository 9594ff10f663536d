import YrdenConfig
import YrdenTransport

extension UpstreamConnection {
    /// The table of users' own sessions (``UserSessions``) for a `perUser` server whose connection `client`
    /// speaks the handshake era over Streamable HTTP; `nil` for any other (a 2026-07-28 server takes each
    /// request on its own token, so users' calls share its connection).
    func userSessions(over client: UpstreamClient) -> UserSessions? {
        guard case .http(let url, let headers, .oauth(let settings), _) = spec.transport, settings.perUser,
            client.modernStamp == nil, let credentials = owners.connector.credentials
        else { return nil }
        let spec = self.spec
        let connection = self
        return UserSessions(shared: client, limits: owners.connector.userSessionLimits, time: time) {
            user throws(UpstreamError) in
            var endpoint = StreamableHTTPEndpoint(
                url: url,
                headers: headers,
                requestTimeout: spec.timeouts.request,
                toolCallTimeout: spec.timeouts.toolCall,
                authorizer: UserAuthorizer(credentials: credentials, spec: spec, user: user)
            )
            endpoint.opensListenStream = false
            let client = try connection.open(.streamableHTTP(endpoint), log: "http")
            do throws(UpstreamError) {
                _ = try await client.initialize(
                    clientInfo: Gateway.clientInfo,
                    capabilities: Gateway.upstreamClientCapabilities,
                    timeout: spec.timeouts.connect
                )
            } catch {
                await shielded { await client.close() }
                throw UpstreamError(
                    error.kind,
                    "opening the user's session: \(error.message)",
                    httpStatus: error.httpStatus
                )
            }
            return client
        }
    }
}

/// Signs a user's own session in with that user's token: its handshake, and the session's renewal after the
/// server forgot it. (A call carries the user's `Authorization` itself, refreshed by the dispatcher on a 401.)
struct UserAuthorizer: UpstreamAuthorizer {
    let credentials: any UpstreamCredentials
    let spec: ServerSpec
    let user: String

    func authorization() async throws(UpstreamError) -> String {
        switch try await credentials.userAuthorization(for: spec, user: user) {
        case .authorization(let value): return value
        case .signInNeeded: throw UpstreamError(.auth, "the user must sign in to \(spec.id) again", httpStatus: 401)
        }
    }

    func rejected(_ used: String, status: Int, challenge: String?) async -> Bool {
        guard status == 401 else { return false }
        guard case .authorization = try? await credentials.userAuthorizationRefused(used, for: spec, user: user) else {
            return false
        }
        return true
    }
}
