import YrdenProtocol

/// The `gateway` section.
///
/// Keys, all optional:
/// - `listen` (string, `HOST:PORT`, IPv6 as `[::1]:8750`; default `127.0.0.1:8750`)
/// - `toolSeparator` (string, 1–8 tool-name characters; default `__`)
/// - `adminToken` (string; `""` as written means no token; an unset `${VAR}`, or one that expands to empty, is
///   a problem, never "no token")
/// - `clientTokens` (array of non-empty strings, each `${VAR}` set; when any is given, `/mcp` requires
///   `Authorization: Bearer` with one)
/// - `allowedOrigins` (array of `scheme://host[:port]`; default none)
/// - `trustedProxies` (array of addresses or networks, `10.0.0.0/8`; default none): proxies in front of the
///   gateway whose `X-Forwarded-For` names the client, for the bounds one client may hold
/// - `maxBodyBytes` (integer, 1 to 1 GiB; default 16 MiB)
/// - `dataDir` (non-empty string)
/// - `publicURL` (absolute http/https URL)
/// - `replicaURL` (absolute http/https URL): how the other replicas of a gateway with a store reach this one
///   (a parked call's retry that lands elsewhere is handed here); each replica's own, like `listen`
/// - `oauthCallback` (`HOST:PORT` on loopback): a listener of its own for OAuth redirects, for a main
///   listener that browsers cannot reach as `127.0.0.1`
/// - `maxSessions` (integer, 1 to 1,000,000; default 10,000): MCP sessions open at once
/// - `maxSessionsPerClient` (integer, 1 to 1,000,000; default 256): of those, held by one client (one
///   user a token proved, else one `Authorization` header, else one address)
/// - `sessionIdleTimeout` (whole seconds, 1 to 604,800; default 900): when an unused session ends
/// - `startupWait` (whole seconds, 0 to 300; default 5): how long the first `initialize` and lists wait for
///   every enabled server's first connection attempt; 0 answers at once
/// - `console` (boolean; default true): serve the web console at `/`
/// - `auth` (object, see ``decodeResourceAuth(_:)``): the gateway as an OAuth-protected resource
/// - `appsListen` (`HOST:PORT`; default the listen host on the next port): the MCP Apps sandbox, an origin of
///   its own for the pages of apps the console runs
/// - `webSocketPingInterval`, `webSocketPongTimeout` (whole seconds, 1 to 3,600; default 15 each): how often
///   the gateway pings a `/ws` client, and how much longer than that it waits for a word from it before
///   closing its socket
extension ConfigDecoder {
    static let gatewayKeys = [
        "listen", "toolSeparator", "adminToken", "clientTokens", "allowedOrigins", "trustedProxies", "maxBodyBytes",
        "dataDir",
        "publicURL", "replicaURL", "oauthCallback", "maxSessions", "maxSessionsPerClient", "sessionIdleTimeout",
        "startupWait",
        "console", "appsListen", "auth", "webSocketPingInterval", "webSocketPongTimeout",
    ]

    func decodeGateway(_ reader: JSONReader) -> GatewaySettings {
        var settings = GatewaySettings()
        guard let object = reader.object(known: Self.gatewayKeys) else { return settings }
        if let field = object["listen"], let text = field.string() {
            switch ListenAddress.parse(text) {
            case .success(let address):
                settings.listenHost = address.host
                settings.listenPort = address.port
            case .failure(let failure):
                field.report(failure.message, fix: failure.fix)
            }
        }
        if let field = object["toolSeparator"], let separator = field.string() {
            if let finding = ConfigRules.checkSeparator(separator) {
                field.report(finding)
            } else {
                settings.toolSeparator = separator
            }
        }
        if let token = object["adminToken"]?.token("the admin token", empty: "remove adminToken for none") {
            settings.adminToken = token.isEmpty ? nil : token
        }
        if let tokens = object["clientTokens"]?.tokens("a client token") {
            settings.clientTokens = tokens
        }
        if let items = object["allowedOrigins"]?.array() {
            for item in items {
                guard let origin = item.string() else { continue }
                if let finding = ConfigRules.checkOrigin(origin, shown: item.writtenString) {
                    item.report(finding)
                } else {
                    settings.allowedOrigins.append(origin)
                }
            }
        }
        for item in object["trustedProxies"]?.array() ?? [] {
            guard let network = item.string() else { continue }
            if let finding = ConfigRules.checkProxyNetwork(network) {
                item.report(finding)
            } else {
                settings.trustedProxies.append(network)
            }
        }
        if let bytes = object["maxBodyBytes"]?.integer(
            in: GatewaySettings.maxBodyBytesRange,
            fix: "use a number of bytes from 1 to 1073741824 (1 GiB); the default is 16777216 (16 MiB)"
        ) {
            settings.maxBodyBytes = bytes
        }
        if let count = object["maxSessions"]?.integer(in: 1...1_000_000) {
            settings.maxSessions = count
        }
        if let count = object["maxSessionsPerClient"]?.integer(
            in: 1...1_000_000,
            fix: "use a number of sessions from 1 to 1000000; the default is 256"
        ) {
            settings.maxSessionsPerClient = count
        }
        if let seconds = object["sessionIdleTimeout"]?.integer(
            in: 1...604_800,
            fix: "use a whole number of seconds from 1 to 604800 (one week)"
        ) {
            settings.sessionIdleTimeout = .seconds(seconds)
        }
        if let seconds = object["startupWait"]?.integer(
            in: 0...300,
            fix: "use a whole number of seconds from 0 (do not wait) to 300"
        ) {
            settings.startupWait = .seconds(seconds)
        }
        for key in ["webSocketPingInterval", "webSocketPongTimeout"] {
            guard
                let seconds = object[key]?.integer(
                    in: GatewaySettings.webSocketSecondsRange,
                    fix: "use a whole number of seconds from 1 to 3600; the default is 15"
                )
            else { continue }
            if key == "webSocketPingInterval" {
                settings.webSocketPingInterval = .seconds(seconds)
            } else {
                settings.webSocketPongTimeout = .seconds(seconds)
            }
        }
        if let directory = object["dataDir"]?.nonEmptyString("dataDir") {
            settings.dataDir = directory
        }
        if let field = object["oauthCallback"], let text = field.string() {
            switch ListenAddress.parse(text) {
            case .success(let address) where ListenAddress.isLoopback(host: address.host):
                settings.oauthCallback = address
            case .success:
                field.report(
                    "the OAuth callback listener must be on loopback: the browser that signs in runs on this machine",
                    fix: "use 127.0.0.1:PORT, or set publicURL when browsers reach the gateway another way"
                )
            case .failure(let failure):
                field.report(failure.message, fix: failure.fix)
            }
        }
        if let auth = object["auth"] { settings.auth = decodeResourceAuth(auth) }
        if let enabled = object["console"]?.bool() {
            settings.console = enabled
        }
        if let field = object["appsListen"], let text = field.string() {
            switch ListenAddress.parse(text) {
            case .success(let address) where address.port != 0 && address.port == settings.listenPort:
                field.report(
                    "the apps sandbox needs a port of its own: an app's page must not share the console's origin",
                    fix: "use another port, e.g. \(ListenAddress(host: address.host, port: address.port + 1))"
                )
            case .success(let address):
                settings.appsListen = address
            case .failure(let failure):
                field.report(failure.message, fix: failure.fix)
            }
        }
        if let field = object["publicURL"], let url = field.string() {
            if let finding = ConfigRules.checkHTTPURL(url, shown: field.writtenString) {
                field.report(finding)
            } else {
                settings.publicURL = url
            }
        }
        if let field = object["replicaURL"], let url = field.string() {
            if let finding = ConfigRules.checkHTTPURL(url, shown: field.writtenString) {
                field.report(finding)
            } else {
                settings.replicaURL = url
            }
        }
        return settings
    }
}
