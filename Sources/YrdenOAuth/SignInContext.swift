import Crypto
import YrdenProtocol
import YrdenStorage

/// What a pending sign-in needs to redeem its code: where, for what, as which client, with which verifier.
///
/// Replicas sharing a store keep it there too (sealed, under a name made from the flow's `state`), so that the
/// browser's return, which a balancer may send to any replica, can be redeemed by the one it reaches.
struct SignInContext: Sendable, Hashable {
    var serverID: String
    var state: String
    var tokenEndpoint: String
    /// The RFC 8707 resource of the authorization request; the token request names it again.
    var resource: String
    /// The issuer the user was sent to; a response's `iss` must equal it.
    var issuer: String
    /// The issuer promised `iss` in every response (RFC 9207).
    var issuerRequired: Bool
    /// The client the code is issued to; a configured client's secret is left out (it stays in the config).
    var client: ClientRegistration
    /// The redirect URI of the authorization request, which the token request must repeat exactly.
    var redirectURI: String
    var verifier: String
    var scopes: [String]?
    /// Seconds since the epoch after which the flow is over.
    var expiresAt: Double

    /// The store's name of the sign-in whose `state` is `state`: a digest, so the name is a valid one whatever
    /// the state holds.
    static func sharedName(forState state: String) -> String {
        let digest = SHA256.hash(data: Array(state.utf8))
        return SharedSignIns.prefix
            + digest.prefix(16).map { byte in
                let hex = String(byte, radix: 16)
                return byte < 16 ? "0" + hex : hex
            }.joined()
    }

    static let formatVersion = 1

    var document: JSONValue {
        var client = client
        if !client.isDynamic { client.clientSecret = nil }
        var object: JSONObject = [
            "version": .int(Self.formatVersion),
            "serverId": .string(serverID),
            "state": .string(state),
            "tokenEndpoint": .string(tokenEndpoint),
            "resource": .string(resource),
            "issuer": .string(issuer),
            "issuerRequired": .bool(issuerRequired),
            "client": client.document,
            "redirectUri": .string(redirectURI),
            "verifier": .string(verifier),
            "expiresAt": .double(expiresAt),
        ]
        if let scopes { object["scopes"] = .array(scopes.map(JSONValue.string)) }
        return .object(object)
    }

    init?(document: JSONValue) {
        guard document["version"]?.intValue == Self.formatVersion,
            let serverID = document["serverId"]?.stringValue,
            let state = document["state"]?.stringValue,
            let tokenEndpoint = document["tokenEndpoint"]?.stringValue,
            let resource = document["resource"]?.stringValue,
            let issuer = document["issuer"]?.stringValue,
            let client = document["client"].flatMap(ClientRegistration.init(document:)),
            let redirectURI = document["redirectUri"]?.stringValue,
            let verifier = document["verifier"]?.stringValue,
            let expiresAt = document["expiresAt"]?.doubleValue
        else { return nil }
        self.serverID = serverID
        self.state = state
        self.tokenEndpoint = tokenEndpoint
        self.resource = resource
        self.issuer = issuer
        issuerRequired = document["issuerRequired"]?.boolValue ?? true
        self.client = client
        self.redirectURI = redirectURI
        self.verifier = verifier
        scopes = document["scopes"]?.arrayValue?.compactMap(\.stringValue)
        self.expiresAt = expiresAt
    }

    init(
        serverID: String,
        state: String,
        tokenEndpoint: String,
        resource: String,
        issuer: String,
        issuerRequired: Bool,
        client: ClientRegistration,
        redirectURI: String,
        verifier: String,
        scopes: [String]?,
        expiresAt: Double
    ) {
        self.serverID = serverID
        self.state = state
        self.tokenEndpoint = tokenEndpoint
        self.resource = resource
        self.issuer = issuer
        self.issuerRequired = issuerRequired
        self.client = client
        self.redirectURI = redirectURI
        self.verifier = verifier
        self.scopes = scopes
        self.expiresAt = expiresAt
    }
}

/// The sign-ins replicas keep in a shared store, as a whole: a replica that stops with one pending leaves it
/// there (another may still redeem it until it expires), so each replica sweeps the expired ones at start.
package enum SharedSignIns {
    /// The names' prefix.
    package static let prefix = "oauth-flow."

    /// Removes, among `names`, the sign-ins in `secrets` whose time is up at `now` (and any that cannot be
    /// read); returns how many. The records kept beside them under the same prefix (the gateway's sign-in
    /// links) go the same way: every one says until when it holds, as `expiresAt`.
    @discardableResult
    package static func removeExpired(_ names: [String], from secrets: any SecretStore, at now: Double) -> Int {
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            let bytes = (try? secrets.load(name)) ?? nil
            let expiresAt = bytes.flatMap { try? JSONValue.parse($0) }?["expiresAt"]?.doubleValue
            if let expiresAt, expiresAt > now { continue }
            if (try? secrets.remove(name)) != nil { removed += 1 }
        }
        return removed
    }

    /// The store's name of the gateway's sign-in link `id` (a record beside the sign-ins, under a digest of
    /// the id).
    package static func name(forLink id: String) -> String {
        let digest = SHA256.hash(data: Array(id.utf8)).prefix(16)
        return prefix + "link-" + digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The store's name of the pending sign-in whose authorization request carried `state`.
    package static func name(forState state: String) -> String {
        SignInContext.sharedName(forState: state)
    }
}
