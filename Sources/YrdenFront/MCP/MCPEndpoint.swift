import Logging
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// The aggregated MCP endpoint over Streamable HTTP: the handshake revisions (2025-03-26 to 2025-11-25) and
/// the stateless 2026-07-28 era side by side.
///
/// POST carries client messages: `initialize` opens a session, a request in the 2026-07-28 envelope stands
/// alone (`MCPEndpoint+Stateless`), everything else must name a session in `Mcp-Session-Id`. Requests are
/// answered with JSON, or with an SSE stream when the client asked for progress, so progress arrives while
/// the call runs. GET opens the session's stream for server-initiated messages; DELETE ends the session.
package struct MCPEndpoint: Sendable {
    let gateway: Gateway
    let origins: OriginPolicy
    private(set) var clients: ClientTokenPolicy
    /// With `gateway.auth`, what checks access tokens; `nil`: only `clients` decides.
    let resourceGuard: ResourceGuard?
    /// A profile's grants (its `users` and `groups`); `nil`: every admitted caller may use the endpoint.
    var grants: ProfileGrants?
    let logger: Logger
    /// Where a retry of a call parked on another replica is handed; `nil` for a gateway on its own.
    let replicas: (any ReplicaHandOff)?
    /// The aggregate (`/mcp`), one server alone (`/servers/{id}/mcp`) or a profile (`/mcp/{profile}`): what its
    /// sessions and requests see.
    var scope: CatalogScope = .gateway

    static let sessionHeader = "Mcp-Session-Id"
    static let versionHeader = "MCP-Protocol-Version"
    static let heartbeatInterval: Duration = .seconds(15)

    package init(
        gateway: Gateway,
        origins: OriginPolicy,
        clients: ClientTokenPolicy = ClientTokenPolicy(tokens: []),
        replicas: (any ReplicaHandOff)? = nil,
        resourceGuard: ResourceGuard? = nil,
        logger: Logger
    ) {
        self.gateway = gateway
        self.origins = origins
        self.clients = clients
        self.resourceGuard = resourceGuard
        self.replicas = replicas
        self.logger = logger
    }

    package func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let caller: Caller
        switch await admission(request) {
        case .refused(let response): return response
        case .admitted(let admitted): caller = admitted
        }
        if request.method != "POST", Self.isStatelessEraStreamOrDelete(request) {
            return FrontResponses.methodNotAllowed("POST")
        }
        switch request.method {
        case "POST":
            guard MediaTypeRules.acceptsPostAnswers(request.headers["Accept"]) else {
                return Self.notAcceptable("Accept must list both application/json and text/event-stream")
            }
            guard MediaTypeRules.isJSON(request.headers["Content-Type"]) else {
                return FrontResponses.rpcError(
                    415,
                    .invalidRequest("Unsupported Media Type: Content-Type must be application/json")
                )
            }
            return await post(request, caller: caller)
        case "GET":
            guard MediaTypeRules.acceptsStream(request.headers["Accept"]) else {
                return Self.notAcceptable("Accept must list text/event-stream")
            }
            return openStream(request, caller: caller)
        case "DELETE": return delete(request, caller: caller)
        default: return FrontResponses.methodNotAllowed("GET, POST, DELETE")
        }
    }

    /// Who sent the request, or why it may not use MCP here (a browser origin not allowed, a client token
    /// missing). Shared with the legacy HTTP+SSE transport.
    func admission(_ request: HTTPRequest) async -> Admission {
        guard origins.permits(request.headers["Origin"]) else {
            return .refused(FrontResponses.rpcError(403, JSONRPCError(code: -32000, message: "Origin not allowed")))
        }
        let admission: Admission
        if let resourceGuard {
            admission = await resourceGuard.admission(
                request.headers["Authorization"],
                path: resourcePath,
                tokens: clients
            )
        } else {
            admission = clientTokenAdmission(request)
        }
        guard case .admitted(let caller) = admission, let grants, !grants.permits(caller) else { return admission }
        return .refused(
            FrontResponses.rpcError(
                403,
                JSONRPCError(code: -32000, message: "this profile is not granted to \(caller.user)")
            )
        )
    }

    private func clientTokenAdmission(_ request: HTTPRequest) -> Admission {
        guard let caller = clients.caller(for: request.headers["Authorization"]) else {
            var response = FrontResponses.rpcError(
                401,
                JSONRPCError(code: -32001, message: "this gateway needs a bearer token (gateway.clientTokens)")
            )
            response.headers.add(name: "WWW-Authenticate", value: #"Bearer realm="yrden""#)
            return .refused(response)
        }
        return .admitted(caller)
    }

    /// The path of this endpoint's MCP URL, whose resource URI an access token may be for.
    var resourcePath: String {
        switch scope {
        case .gateway: "/mcp"
        case .profile(let name): "/mcp/" + name
        case .server(let id): "/servers/" + id + "/mcp"
        }
    }

    /// The same endpoint for the clients of one server alone, or of a profile.
    package func scoped(to scope: CatalogScope) -> MCPEndpoint {
        var endpoint = self
        endpoint.scope = scope
        return endpoint
    }

    /// The same endpoint, granted only to some users or groups (a profile's).
    package func granting(_ grants: ProfileGrants) -> MCPEndpoint {
        var endpoint = self
        endpoint.grants = grants
        return endpoint
    }

    /// The same endpoint, open to other tokens (a profile's own).
    package func accepting(_ clients: ClientTokenPolicy) -> MCPEndpoint {
        var endpoint = self
        endpoint.clients = clients
        return endpoint
    }

    /// 406: the client cannot take the answers this endpoint gives.
    static func notAcceptable(_ rule: String) -> HTTPResponse {
        FrontResponses.rpcError(406, .invalidRequest("Not Acceptable: \(rule)"))
    }

    /// The session a non-initialize request of `caller` names, or the HTTP error to answer instead: a session
    /// serves only the principal that opened it (another token's holder cannot ride on a leaked session id).
    func session(for request: HTTPRequest, caller: Caller) -> SessionLookup {
        guard let id = request.headers[Self.sessionHeader] else {
            return .refused(
                FrontResponses.rpcError(
                    400,
                    .invalidRequest("missing \(Self.sessionHeader) header; send initialize first")
                )
            )
        }
        // A session belongs to the endpoint it was opened on: another one does not know it.
        guard let session = gateway.sessions.session(id), session.scope == scope else {
            return .refused(
                FrontResponses.rpcError(404, JSONRPCError(code: -32001, message: "Session not found; initialize again"))
            )
        }
        guard session.caller.isSamePrincipal(as: caller) else {
            return .refused(
                FrontResponses.rpcError(
                    403,
                    JSONRPCError(code: -32000, message: "this session was opened by another caller; initialize again")
                )
            )
        }
        if let version = request.headers[Self.versionHeader], !ProtocolVersion.isSupported(version) {
            return .refused(
                FrontResponses.rpcError(400, .invalidRequest("unsupported \(Self.versionHeader): \(version)"))
            )
        }
        return .found(session)
    }

    private func delete(_ request: HTTPRequest, caller: Caller) -> HTTPResponse {
        switch session(for: request, caller: caller) {
        case .refused(let response): return response
        case .found(let session):
            _ = gateway.sessions.end(session.id)
            return HTTPResponse(status: 204)
        }
    }

    /// The GET stream: server-initiated messages (list changes) until the session ends or the client leaves.
    private func openStream(_ request: HTTPRequest, caller: Caller) -> HTTPResponse {
        let session: DownstreamSession
        switch self.session(for: request, caller: caller) {
        case .refused(let response): return response
        case .found(let found): session = found
        }
        let messages = session.openNotificationStream()
        // Often enough that a listening client's session never reaches its idle deadline.
        let heartbeat = min(Self.heartbeatInterval, gateway.sessions.idleTimeout / 3)
        return HTTPResponse(
            status: 200,
            headers: SSE.headers,
            body: .stream { writer in
                await Self.relay(messages, of: session, to: writer, heartbeat: heartbeat)
            }
        )
    }
}

extension MCPEndpoint {
    /// Writes a session's server-initiated messages to an SSE stream, each as `frame` makes it (`nil` skips
    /// it), with a keep-alive comment every `heartbeat`, until the client leaves, the task is cancelled or the
    /// messages end (the session ended); then `last`, if any, is written.
    static func relay(
        _ messages: AsyncStream<JSONRPCMessage>,
        of session: DownstreamSession,
        to writer: HTTPBodyWriter,
        heartbeat: Duration,
        last: JSONRPCMessage? = nil,
        frame: @escaping @Sendable (JSONRPCMessage) -> JSONRPCMessage? = { $0 }
    ) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in messages {
                    guard let framed = frame(message) else { continue }
                    do { try await writer.write(SSE.event(framed)) } catch { return }
                }
                if let last { try? await writer.write(SSE.event(last)) }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: heartbeat)
                    do { try await writer.write(SSE.heartbeat) } catch { return }
                    // The client is still there to listen: the session is in use, not idle.
                    session.touch()
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}

/// Who sent a request to the MCP endpoint, or the HTTP answer that refuses it (401, 403).
enum Admission {
    case admitted(Caller)
    case refused(HTTPResponse)
}

/// A request's session, or the HTTP answer that refuses it (400 without one, 404 for an unknown one).
enum SessionLookup {
    case found(DownstreamSession)
    case refused(HTTPResponse)
}
