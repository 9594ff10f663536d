/// How the gateway reaches one upstream server.
///
/// Decided from the fields a server entry has (`command` means stdio, `url` means Streamable HTTP) unless
/// `type` pins it. `fallbackToSSE` is true only when the transport was inferred from a bare `url`: then a
/// server that refuses the first POST is retried over legacy HTTP+SSE, as the MCP spec describes. A pinned
/// `"type": "http"` means exactly Streamable HTTP.
package enum TransportSpec: Sendable, Hashable {
    case stdio(command: String, args: [String], env: [String: String], cwd: String?)
    case http(url: String, headers: [String: String], auth: AuthSpec, fallbackToSSE: Bool)
    case sse(url: String, headers: [String: String], auth: AuthSpec)
    /// One WebSocket connection (`ws://`, `wss://`, subprotocol `mcp`); only with `"type": "websocket"`.
    case websocket(url: String, headers: [String: String], auth: AuthSpec)

    /// `"stdio"`, `"http"`, `"sse"` or `"websocket"`: the name the admin API and logs use.
    package var kindName: String {
        switch self {
        case .stdio: "stdio"
        case .http: "http"
        case .sse: "sse"
        case .websocket: "websocket"
        }
    }

    /// The OAuth settings of a remote server that signs in (`"auth": {"type": "oauth"}`), else nil.
    package var oauthSettings: OAuthSpec? {
        switch self {
        case .http(_, _, .oauth(let settings), _), .sse(_, _, .oauth(let settings)),
            .websocket(_, _, .oauth(let settings)):
            settings
        default:
            nil
        }
    }
}

/// How the gateway authenticates to a remote server beyond any static `headers`.
package enum AuthSpec: Sendable, Hashable {
    case none
    case oauth(OAuthSpec)
    /// Each call carries a token exchanged for its caller's (the connection itself goes with `headers` only).
    case tokenExchange(TokenExchangeSpec)
    /// Each call carries its caller's own bearer token, as presented to the gateway: only where the config
    /// says so (`"type": "forward"`), never by default.
    case forward

    /// Whether calls carry a credential of their caller's rather than the server's connection's.
    package var isPerCaller: Bool {
        switch self {
        case .tokenExchange, .forward: true
        case .none, .oauth: false
        }
    }
}

/// OAuth 2.1 settings for one server; everything optional because discovery and dynamic client registration
/// fill in what is missing.
package struct OAuthSpec: Sendable, Hashable {
    package var scopes: [String]
    /// A pre-registered client; `nil` means register dynamically.
    package var clientId: String?
    package var clientSecret: String?
    /// A fixed port for the redirect listener, for clients registered with an exact redirect URI.
    package var redirectPort: Int?
    /// The URL of the gateway's client ID metadata document, used as client_id where the authorization
    /// server takes one (CIMD); after `clientId`, before dynamic registration.
    package var clientMetadataURL: String?
    /// One sign-in per Yrden user (`perUser`): each user's calls carry that user's own token; the server's
    /// connection (handshake, lists) keeps the server's one sign-in.
    package var perUser: Bool = false

    package init(
        scopes: [String] = [],
        clientId: String? = nil,
        clientSecret: String? = nil,
        redirectPort: Int? = nil,
        clientMetadataURL: String? = nil
    ) {
        self.scopes = scopes
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.redirectPort = redirectPort
        self.clientMetadataURL = clientMetadataURL
    }

    static let keys = ["type", "scopes", "clientId", "clientSecret", "redirectPort", "clientMetadataURL", "perUser"]
}
