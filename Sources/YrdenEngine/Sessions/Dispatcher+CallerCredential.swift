import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// What a forwarded call carries for its caller, beyond what the server's connection carries.
enum CallerCredential: Sendable {
    /// Nothing: the connection's credential (its headers, the server's sign-in) serves.
    case connection
    /// This `Authorization`, for this call only.
    case authorization(String)
    /// The call is not sent: the caller must sign in first, at this URL (``Dispatcher/signInAnswer``).
    case signIn(url: String, message: String)
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
    private func userCredential(
        to spec: ServerSpec,
        method: String,
        _ context: ForwardContext
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
        do {
            outcome = try await credentials.userAuthorization(for: spec, user: context.caller.user)
        } catch {
            throw .upstreamUnavailable("MCP server '\(server)': \(error.message)", server: server)
        }
        switch outcome {
        case .authorization(let value):
            return .authorization(value)
        case .signInNeeded(let url):
            return .signIn(url: url, message: "Sign in to '\(server)' as \(context.caller.user) to use it: open \(url)")
        }
    }

    /// The answer to a call whose user must sign in first. A client that can be asked during the call and
    /// declared URL-mode elicitation gets `elicitation/create` (`mode: "url"`) with the URL, and then the call's
    /// answer: a tool error saying to call again once signed in. One that declared it but cannot be asked now
    /// (no stream to it, a 2026-07-28 request) gets `URL_ELICITATION_REQUIRED` carrying the same elicitation;
    /// any other a tool error with the URL in its text (an error for anything but `tools/call`).
    func signInAnswer(
        url: String,
        message: String,
        server: String,
        method: String,
        relay: SessionRelay,
        _ context: ForwardContext
    ) async -> Result<JSONValue, JSONRPCError> {
        let elicitation: JSONObject = [
            "mode": "url", "message": .string(message), "url": .string(url),
            "elicitationId": .string("yrden-sign-in-" + server),
        ]
        var shown = message
        if context.clientCapabilities["elicitation"]?["url"] != nil {
            guard relay.takesRequests, relay.send != nil else {
                let data: JSONValue = ["elicitations": [.object(elicitation)]]
                return .failure(JSONRPCError(code: Self.urlElicitationRequired, message: message, data: data))
            }
            let ask = JSONRPCRequest(
                id: .string("yrden-sign-in-" + server),
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
        case .http(_, _, let auth, _), .sse(_, _, let auth): auth
        case .stdio: nil
        }
    }
}
