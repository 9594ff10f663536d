import YrdenConfig
import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// A user's sign-in the gateway started: its link (`/oauth/sign-in/<id>`) and the `elicitationId` it is
/// shown under, the same for that user and server.
struct PendingUserSignIn: Sendable {
    let url: String
    let elicitationID: String
}

/// What a forwarded call carries for its caller, beyond what the server's connection carries.
enum CallerCredential: Sendable {
    /// Nothing: the connection's credential (its headers, the server's sign-in) serves.
    case connection
    /// This `Authorization`, for this call only.
    case authorization(String)
    /// This `Authorization` of the caller's own sign-in (`perUser`), for this call only: refused with a 401, it
    /// is refreshed once and the call sent again (``Dispatcher/retry(afterRefused:_:on:server:params:options:inputRelay:_:)``).
    case userAuthorization(String)
    /// The call is not sent: the caller must sign in first (``Dispatcher/signInAnswer``).
    case signIn(PendingUserSignIn)

    /// The `Authorization` the call carries for its caller, if any.
    var authorization: String? {
        switch self {
        case .authorization(let value), .userAuthorization(let value): value
        case .connection, .signIn: nil
        }
    }
}

/// What a parked call does when its upstream request failed with `error`: `nil` when it is no refused user
/// token (the failure stands).
typealias RefusalRecovery = @Sendable (_ error: UpstreamError) async -> RecoveredCall?

/// How a user's call the upstream refused goes on.
enum RecoveredCall: Sendable {
    /// Sent once more, with this `Authorization`.
    case retry(authorization: String)
    /// Answered so, without sending it again (the user must sign in first).
    case answer(Result<JSONValue, JSONRPCError>)
}

/// A user's call whose `Authorization` the upstream may refuse: what its second chance needs.
struct RefusableUserCall: Sendable {
    /// The `Authorization` the call was sent with.
    let used: String
    /// Where a sign-in elicitation goes, when the refresh is refused.
    let relay: SessionRelay
}

extension Dispatcher {
    /// JSON-RPC's `URL_ELICITATION_REQUIRED` (2025-11-25): the request needs a URL-mode elicitation first.
    static let urlElicitationRequired = -32042

    /// What a call to `server` carries for its caller, when the server's `auth` says calls go with the
    /// caller's credential: the caller's own bearer token (`forward`, only where configured), one exchanged
    /// for it (`tokenExchange`), or the user's own sign-in (`oauth` with `perUser`). A caller who presented no
    /// token cannot be stood for by the first two: the call is refused, never sent without one.
    func callerCredential(
        to server: String,
        method: String,
        _ context: ForwardContext
    ) async throws(JSONRPCError) -> CallerCredential {
        guard let spec = context.snapshot.links[server]?.spec, let auth = Self.auth(of: spec) else {
            return .connection
        }
        switch auth {
        case .none:
            return .connection
        case .oauth(let settings):
            return settings.perUser ? try await userCredential(to: spec, method: method, context) : .connection
        case .forward, .tokenExchange:
            guard let token = context.caller.token?.value else {
                throw .upstreamUnavailable(
                    "MCP server '\(server)' acts with each caller's own credential, and this request came "
                        + "without a bearer token",
                    server: server
                )
            }
            guard case .tokenExchange = auth else { return .authorization("Bearer " + token) }
            guard let credentials = connector.credentials else {
                throw .upstreamUnavailable("this gateway cannot exchange tokens for '\(server)'", server: server)
            }
            do {
                return .authorization("Bearer " + (try await credentials.exchangedToken(for: spec, callerToken: token)))
            } catch {
                throw .upstreamUnavailable("MCP server '\(server)': \(error.message)", server: server)
            }
        }
    }

    /// A `perUser` server: the caller's own sign-in, or the URL they must sign in at first.
    /// `refused`: the `Authorization` the upstream just refused, to be refreshed.
    func userCredential(
        to spec: ServerSpec,
        method: String,
        _ context: ForwardContext,
        refused: String? = nil
    ) async throws(JSONRPCError) -> CallerCredential {
        let server = spec.id
        // An open gateway's callers are all "anonymous": one sign-in would serve them all, which is no user's.
        guard context.caller.authentication != .none else {
            throw .upstreamUnavailable(
                "MCP server '\(server)' signs in per user, and this gateway does not know who its callers are: "
                    + "set gateway.clientTokens or gateway.auth",
                server: server
            )
        }
        guard let credentials = connector.credentials else {
            throw .upstreamUnavailable("this gateway keeps no per-user sign-ins for '\(server)'", server: server)
        }
        let outcome: UserAuthorization
        // A refresh after a refusal is a span of its own (`oauth.refresh`) when the call is traced.
        let refresh = refused == nil ? nil : tracer.map { RequestSpans.oauthRefresh($0, parent: context.trace, server) }
        do {
            if let refused {
                outcome = try await credentials.userAuthorizationRefused(refused, for: spec, user: context.caller.user)
            } else {
                outcome = try await credentials.userAuthorization(for: spec, user: context.caller.user)
            }
        } catch {
            if let tracer, var span = refresh {
                span.fail("error", message: error.message)
                tracer.end(span)
            }
            throw .upstreamUnavailable("MCP server '\(server)': \(error.message)", server: server)
        }
        if let tracer, var span = refresh {
            let signInNeeded = if case .signInNeeded = outcome { true } else { false }
            span.setMCP { $0.outcome = signInNeeded ? "sign_in_needed" : "ok" }
            tracer.end(span)
        }
        switch outcome {
        case .authorization(let value):
            return .userAuthorization(value)
        case .signInNeeded(let url, let elicitationID):
            // The user's tokens are gone (or never were): their own session, if any, goes with them.
            userSessions.table(for: server)?.discard(context.caller.user)
            return .signIn(PendingUserSignIn(url: url, elicitationID: elicitationID))
        }
    }

    /// ``retry(afterRefused:_:on:server:params:options:inputRelay:_:)`` for a call that runs parked
    /// (``EraBridge/forwardParking``), which makes the request itself: what it does after a 401.
    func recovery(
        afterRefused refused: RefusableUserCall,
        server: String,
        method: String,
        _ context: ForwardContext
    ) -> RefusalRecovery {
        { [self] error in
            guard error.kind == .auth, error.httpStatus == 401, let spec = context.snapshot.links[server]?.spec else {
                return nil
            }
            do throws(JSONRPCError) {
                switch try await userCredential(to: spec, method: method, context, refused: refused.used) {
                case .userAuthorization(let value), .authorization(let value):
                    return .retry(authorization: value)
                case .signIn(let pending):
                    return .answer(
                        await signInAnswer(pending, server: server, method: method, relay: refused.relay, context)
                    )
                case .connection:
                    return nil
                }
            } catch {
                return .answer(.failure(error))
            }
        }
    }

    /// A user's call the upstream refused with a 401: the user's token is refreshed (once, shared by every call
    /// of that user refused meanwhile) and the call sent once more; a refused refresh is answered as for a
    /// user not signed in. A 401 means the upstream did not run the call, so sending it again is safe.
    func retry(
        afterRefused refused: RefusableUserCall,
        _ request: JSONRPCRequest,
        on client: UpstreamClient,
        server: String,
        params forwarded: JSONObject,
        options: RequestOptions,
        inputRelay: SessionRelay?,
        _ context: ForwardContext
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        guard let spec = context.snapshot.links[server]?.spec else { throw .internalError("no server \(server)") }
        switch try await userCredential(to: spec, method: request.method, context, refused: refused.used) {
        case .userAuthorization(let value), .authorization(let value):
            var options = options
            options.headers.removeAll { $0.name.lowercased() == "authorization" }
            options.headers.append((name: "Authorization", value: value))
            return try await call(
                request,
                on: client,
                server: server,
                params: forwarded,
                options: options,
                inputRelay: inputRelay,
                context
            )
        case .signIn(let pending):
            return await signInAnswer(pending, server: server, method: request.method, relay: refused.relay, context)
        case .connection:
            throw .internalError("server \(server) has no per-user sign-ins")
        }
    }

    /// The answer to a call whose user must sign in first. A client that can be asked during the call and
    /// declared URL-mode elicitation gets `elicitation/create` (`mode: "url"`) with the URL, and then the call's
    /// answer: a tool error saying to call again once signed in. One that declared it but cannot be asked now
    /// (no stream to it, a 2026-07-28 request) gets `URL_ELICITATION_REQUIRED` carrying the same elicitation;
    /// any other a tool error with the URL in its text (an error for anything but `tools/call`).
    func signInAnswer(
        _ pending: PendingUserSignIn,
        server: String,
        method: String,
        relay: SessionRelay,
        _ context: ForwardContext
    ) async -> Result<JSONValue, JSONRPCError> {
        let (url, elicitationID) = (pending.url, pending.elicitationID)
        let message = "Sign in to '\(server)' as \(context.caller.user) to use it: open \(url)"
        let elicitation: JSONObject = [
            "mode": "url", "message": .string(message), "url": .string(url),
            "elicitationId": .string(elicitationID),
        ]
        var shown = message
        if context.clientCapabilities["elicitation"]?["url"] != nil {
            guard relay.takesRequests, relay.send != nil else {
                let data: JSONValue = ["elicitations": [.object(elicitation)]]
                return .failure(JSONRPCError(code: Self.urlElicitationRequired, message: message, data: data))
            }
            let ask = JSONRPCRequest(
                id: .string(elicitationID),
                method: MCPMethod.elicitationCreate,
                params: .object(elicitation)
            )
            let action = (try? await relay.relay(ask).get())?["action"]?.stringValue
            shown =
                action == "accept"
                ? "Finish signing in to '\(server)' in the browser, then call again (\(url))"
                : "Signing in to '\(server)' was not accepted; to use it, open \(url)"
        }
        guard method == MCPMethod.toolsCall else { return .failure(.upstreamUnavailable(shown, server: server)) }
        return .success(["content": [["type": "text", "text": .string(shown)]], "isError": true])
    }

    private static func auth(of spec: ServerSpec) -> AuthSpec? {
        switch spec.transport {
        case .http(_, _, let auth, _), .sse(_, _, let auth), .websocket(_, _, let auth): auth
        case .stdio: nil
        }
    }
}

extension Dispatcher {
    /// When a user's sign-in completes, the sessions that were shown its URL elicitation (and only those) get
    /// `notifications/elicitation/complete` with its id, so a host waiting on it may retry the call. A
    /// 2026-07-28 client was answered -32042 instead and has no session to be told in.
    func followUserSignIns() {
        connector.credentials?.onUserSignedIn { [sessions] elicitationID in
            let notice = JSONRPCNotification(
                method: MCPMethod.elicitationComplete,
                params: ["elicitationId": .string(elicitationID)]
            )
            for session in sessions.all() where session.takeElicitation(elicitationID) {
                session.deliver(.notification(notice))
            }
        }
    }
}
