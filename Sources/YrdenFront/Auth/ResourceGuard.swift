import Logging
import YrdenConfig
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol
import YrdenResourceAuth

/// The MCP endpoints' door when the gateway is an OAuth-protected resource (`gateway.auth`): a request must
/// carry a bearer token, either a static client token or an access token of the issuer for this endpoint (its
/// audience is the gateway's, or the endpoint's own resource URI) with the configured scopes. Refusals say
/// what MCP's authorization spec asks: 401 with `WWW-Authenticate: Bearer resource_metadata=…, scope=…` (and
/// `error="invalid_token"` for a bad token), 403 `insufficient_scope`, 503 when the issuer cannot be asked.
package struct ResourceGuard: Sendable {
    let settings: ResourceAuthSettings
    let verifier: AccessTokenVerifier
    let logger: Logger
    /// Refusals logged per second: a flood of bad tokens is one line a refusal only up to this.
    let refusalLog = LogAllowance(perSecond: 10)
    /// `settings.origin`, worked out once: every request's resource URI starts with it.
    let origin: String

    package init(settings: ResourceAuthSettings, http: IssuerHTTP, logger: Logger) {
        self.settings = settings
        origin = settings.origin
        let introspection = settings.introspectionClientID.flatMap { id in
            settings.introspectionClientSecret.map { (id: id, secret: $0) }
        }
        verifier = AccessTokenVerifier(
            rules: AccessTokenRules(
                issuer: settings.issuer,
                userClaim: settings.userClaim,
                groupsClaim: settings.groupsClaim
            ),
            http: http,
            introspectionClient: introspection,
            now: { WallClock.now() }
        )
        self.logger = logger
    }

    /// A refusal's log line, within ``refusalLog``'s allowance; the first one past a skipped run says how many.
    private func log(_ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata) {
        guard let skipped = refusalLog.admit(now: WallClock.now()) else { return }
        var metadata = metadata
        if skipped > 0 { metadata["skippedBefore"] = "\(skipped)" }
        logger.log(level: level, message, metadata: metadata)
    }

    /// Where the metadata of the resource at `path` is published (RFC 9728 §3.1).
    static let metadataPrefix = "/.well-known/oauth-protected-resource"

    /// The caller of a request to the endpoint at `path` (`/mcp`, `/mcp/ops`, `/servers/x/mcp`), or its refusal.
    func admission(_ authorization: String?, path: String, tokens: ClientTokenPolicy) async -> Admission {
        guard let authorization, let bearer = Self.bearerToken(in: authorization) else {
            return .refused(challenge(path, status: 401, error: nil, message: "this gateway needs an access token"))
        }
        if let caller = tokens.caller(presenting: bearer) { return .admitted(caller) }
        let token = String(bearer)
        let verdict: VerifiedAccessToken
        switch await verifier.verify(token) {
        case .success(let verified):
            verdict = verified
        case .failure(.issuerUnavailable(let why)):
            log(.warning, "access token not checked: its issuer could not be asked", ["reason": "\(why)"])
            return .refused(
                Self.unavailable("the access token's issuer cannot be asked now; try again", retryAfter: 5)
            )
        case .failure(.busy(let why)):
            log(.warning, "access token not checked: too many checks at once", ["reason": "\(why)"])
            return .refused(Self.unavailable("too many access tokens are being checked now; try again", retryAfter: 1))
        case .failure(let rejection):
            log(.info, "access token refused", ["reason": "\(rejection.message)", "path": "\(path)"])
            return .refused(challenge(path, status: 401, error: "invalid_token", message: rejection.message))
        }
        guard verdict.isFor(settings.audience, or: origin + path) else {
            let message = TokenRejection.wrongAudience.message
            return .refused(challenge(path, status: 401, error: "invalid_token", message: message))
        }
        guard settings.scopes.allSatisfy(verdict.scopes.contains) else {
            let message = "the access token lacks a scope this gateway needs"
            return .refused(challenge(path, status: 403, error: "insufficient_scope", message: message))
        }
        return .admitted(
            Caller(
                user: verdict.user,
                groups: verdict.groups,
                authentication: .accessToken,
                token: CallerToken(token)
            )
        )
    }

    /// The token of `Authorization: Bearer <token>` (the scheme in any case, spaces around it ignored); `nil` for
    /// another scheme. Read as UTF-8 bytes: an access token is a kilobyte, and counting its characters (as
    /// ``AdminAccess/bearerToken(in:)`` does for short tokens) cost several µs on every request.
    static func bearerToken(in header: String) -> Substring? {
        let utf8 = header.utf8
        let space = UInt8(ascii: " ")
        guard let start = utf8.firstIndex(where: { $0 != space }) else { return nil }
        let scheme = utf8[start...].prefix(7)
        guard scheme.count == 7, scheme.last == space,
            zip(scheme.dropLast(), "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 })
        else { return nil }
        guard let tokenStart = utf8[scheme.endIndex...].firstIndex(where: { $0 != space }),
            let last = utf8.lastIndex(where: { $0 != space })
        else { return nil }
        return header[tokenStart...last]
    }

    /// 503 with `Retry-After`: the token was not judged, so no challenge (the client's token may be good).
    static func unavailable(_ message: String, retryAfter seconds: Int) -> HTTPResponse {
        var response = FrontResponses.rpcError(503, JSONRPCError(code: -32000, message: message))
        response.headers.add(name: "Retry-After", value: String(seconds))
        return response
    }

    /// A 401 or 403 with the challenge that sends a client to the endpoint's metadata.
    func challenge(_ path: String, status: Int, error: String?, message: String) -> HTTPResponse {
        var parameters = [#"resource_metadata="\#(settings.origin)\#(Self.metadataPrefix)\#(path)""#]
        if !settings.scopes.isEmpty { parameters.append(#"scope="\#(settings.scopes.joined(separator: " "))""#) }
        if let error {
            parameters.append(#"error="\#(error)""#)
            parameters.append(#"error_description="\#(message.replacing("\"", with: "'"))""#)
        }
        var response = FrontResponses.rpcError(status, JSONRPCError(code: -32001, message: message))
        response.headers.add(name: "WWW-Authenticate", value: "Bearer " + parameters.joined(separator: ", "))
        return response
    }

    /// RFC 9728 metadata of the resource at `path`, as `GET /.well-known/oauth-protected-resource<path>` answers.
    func metadata(path: String) -> JSONValue {
        var document: JSONObject = [
            "resource": .string(path.isEmpty ? settings.audience : settings.resource(forPath: path)),
            "authorization_servers": [.string(settings.issuer)],
            "bearer_methods_supported": ["header"],
            "resource_name": "Yrden MCP gateway",
        ]
        if !settings.scopes.isEmpty { document["scopes_supported"] = .array(settings.scopes.map(JSONValue.string)) }
        return .object(document)
    }
}
