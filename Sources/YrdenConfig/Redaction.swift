import YrdenProtocol

/// Secrets hidden from admin API responses, and put back when a client sends a hidden value back.
///
/// The places that hold secrets: every value of a server's `env` and `headers`, a server's `auth.clientSecret`,
/// the gateway's `adminToken` and `clientTokens`, each profile's `clientTokens`, the values of
/// `telemetry.otlp.headers`, and in a server's `url` the password of its user info and credential-like query
/// parameters. Every value there is a secret, whatever its shape. What is shown keeps
/// only what says where a value comes from: each `${NAME}` stays, the default of `${NAME:-default}` becomes
/// `${NAME:-********}`, and every run of literal text becomes ``redactionMark``, so
/// `postgres://u:pw@${HOST}/db` shows as `********${HOST}********` and `Bearer ${TOKEN}` as `********${TOKEN}`.
/// A value that is one plain reference is shown as written; the empty string stays empty; any other JSON value
/// (which the validator refuses) shows as the mark.
///
/// A client that GETs an entry and PUTs it back unchanged sends what it was shown: at a secret place, a value
/// that is the bare mark, or exactly what the stored value shows as, is turned back into the stored value by
/// ``restoringRedacted(_:from:)``, so nothing is lost. Anything else sent is a new value.
extension ConfigDocument {
    package static let redactionMark = "********"

    /// Server entry keys whose members are all secrets.
    private static let secretMaps = ["env", "headers"]

    /// The document with every secret place redacted, for showing; never write it back.
    package func redacted() -> ConfigDocument {
        let members = root.map { key, value -> (String, JSONValue) in
            switch key {
            case Self.serversKey:
                return (key, Self.mappingMembers(of: value) { _, entry in Self.redactedEntry(entry) })
            case "gateway":
                return (key, Self.mappingMembers(of: value) { name, item in Self.redactedGatewayItem(name, item) })
            case Self.profilesKey:
                return (key, Self.mappingMembers(of: value) { _, profile in Self.redactedProfile(profile) })
            case "telemetry":
                return (key, Self.redactedTelemetry(value))
            default:
                return (key, value)
            }
        }
        return ConfigDocument(JSONObject(members))
    }

    /// One server entry with its secret places redacted.
    ///
    /// The entry is rebuilt member by member, so a repeated key (which the decoder would refuse) cannot carry
    /// an unredacted copy of a secret through.
    package static func redactedEntry(_ entry: JSONValue) -> JSONValue {
        mappingMembers(of: entry) { key, value in
            if secretMaps.contains(key) {
                return mappingMembers(of: value) { _, item in redactedValue(item) }
            }
            if key == "auth" {
                return mappingMembers(of: value) { name, item in name == "clientSecret" ? redactedValue(item) : item }
            }
            if key == "url", case .string(let url) = value { return .string(redactedURL(url)) }
            return value
        }
    }

    /// `telemetry.otlp.headers`: the collector's credentials.
    private static func redactedTelemetry(_ section: JSONValue) -> JSONValue {
        mappingMembers(of: section) { name, item in
            guard name == "otlp" else { return item }
            return mappingMembers(of: item) { key, value in
                key == "headers" ? mappingMembers(of: value) { _, header in redactedValue(header) } : value
            }
        }
    }

    private static func redactedGatewayItem(_ name: String, _ item: JSONValue) -> JSONValue {
        switch name {
        case "adminToken": redactedValue(item)
        case "clientTokens": item.arrayValue.map { .array($0.map(redactedValue)) } ?? redactedValue(item)
        case "auth":
            mappingMembers(of: item) { key, value in
                key == "introspection"
                    ? mappingMembers(of: value) { name, secret in
                        name == "clientSecret" ? redactedValue(secret) : secret
                    }
                    : value
            }
        default: item
        }
    }

    /// `new` with every value at a secret place that is what the client was shown replaced by what `old` has
    /// at that place.
    ///
    /// A mark where `old` has nothing stays, and is then refused by the store (``holdsRedactionMark(_:)``).
    /// Only values are replaced, in place, so key order and anything the validator should see (a repeated key)
    /// stay as the client sent.
    package static func restoringRedacted(_ new: JSONValue, from old: JSONValue?) -> JSONValue {
        guard case .object(var entry) = new, let old else { return new }
        if case .string(let url) = entry["url"], url.contains(redactionMark), case .string(let stored) = old["url"],
            redactedURL(stored) == url
        {
            entry["url"] = .string(stored)
        }
        for (section, key) in secretPlaces(in: entry) {
            guard let sent = entry[section]?[key], let previous = old[section]?[key],
                isShownForm(sent, of: previous), case .object(var members) = entry[section]
            else { continue }
            members[key] = previous
            entry[section] = .object(members)
        }
        return .object(entry)
    }

    /// The `gateway` section `new` with `adminToken` and each of `clientTokens` put back from `old` where the
    /// client sent what it was shown.
    package static func restoringRedactedGateway(_ new: JSONValue, from old: JSONValue?) -> JSONValue {
        guard case .object(var gateway) = new, let old else { return new }
        if let sent = gateway["adminToken"], let stored = old["adminToken"], isShownForm(sent, of: stored) {
            gateway["adminToken"] = stored
        }
        if let sent = gateway["clientTokens"]?.arrayValue, let stored = old["clientTokens"]?.arrayValue,
            sent.count == stored.count
        {
            gateway["clientTokens"] = .array(zip(sent, stored).map { isShownForm($0, of: $1) ? $1 : $0 })
        }
        if let sent = gateway["auth"]?["introspection"]?["clientSecret"],
            let stored = old["auth"]?["introspection"]?["clientSecret"], isShownForm(sent, of: stored),
            case .object(var auth) = gateway["auth"], case .object(var introspection) = auth["introspection"]
        {
            introspection["clientSecret"] = stored
            auth["introspection"] = .object(introspection)
            gateway["auth"] = .object(auth)
        }
        return .object(gateway)
    }

    /// A whole document `root` sent by a client, with every value it sent back as shown (servers' secrets, the
    /// gateway's tokens, profiles' tokens) put back from this document.
    package func restoringRedacted(in root: JSONObject) -> JSONObject {
        var root = root
        if let servers = root[Self.serversKey]?.objectValue {
            root[Self.serversKey] = .object(
                JSONObject(servers.map { ($0.key, Self.restoringRedacted($0.value, from: entry($0.key))) })
            )
        }
        if let gateway = root["gateway"] {
            root["gateway"] = Self.restoringRedactedGateway(gateway, from: json["gateway"])
        }
        if case .object(var telemetry) = root["telemetry"], case .object(var otlp) = telemetry["otlp"],
            case .object(var headers) = otlp["headers"], let stored = json["telemetry"]?["otlp"]?["headers"]
        {
            for (name, sent) in headers {
                if let previous = stored[name], Self.isShownForm(sent, of: previous) { headers[name] = previous }
            }
            otlp["headers"] = .object(headers)
            telemetry["otlp"] = .object(otlp)
            root["telemetry"] = .object(telemetry)
        }
        if let profiles = root[Self.profilesKey]?.objectValue {
            root[Self.profilesKey] = .object(
                JSONObject(
                    profiles.map { ($0.key, Self.restoringRedactedProfile($0.value, from: profileEntry($0.key))) }
                )
            )
        }
        return root
    }

    /// Whether `value` still holds the mark somewhere: a hidden value sent back for a place that has nothing
    /// stored, which would otherwise be saved as the literal text `********`.
    package static func holdsRedactionMark(_ value: JSONValue?) -> Bool {
        value?.stringValue?.contains(redactionMark) == true
    }

    /// Whether a client sending `sent` for a place holding `stored` sent back what it was shown.
    static func isShownForm(_ sent: JSONValue, of stored: JSONValue) -> Bool {
        guard case .string(let text) = sent, text.contains(redactionMark) else { return false }
        return text == redactionMark || redactedValue(stored) == sent
    }

    /// The secret places an entry has, as (section, key): `("env", "TZ")`, `("auth", "clientSecret")`.
    private static func secretPlaces(in entry: JSONObject) -> [(String, String)] {
        var places: [(String, String)] = []
        for section in secretMaps {
            guard case .object(let members) = entry[section] else { continue }
            places += members.map { (section, $0.key) }
        }
        if case .some = entry["auth"]?["clientSecret"] { places.append(("auth", "clientSecret")) }
        return places
    }

    /// `url` with the password of its user info and the values of credential-like query parameters redacted
    /// like any secret value: `${VAR}` references inside them are shown, literal text is not.
    package static func redactedURL(_ url: String) -> String {
        URLCredentials.mapping(url) { redactedText($0) }
    }

    /// A secret value as shown.
    static func redactedValue(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null: value
        case .string(let text): .string(redactedText(text))
        default: .string(redactionMark)
        }
    }

    /// Secret text as shown: references kept, their defaults and every run of literal text masked.
    static func redactedText(_ text: String) -> String {
        EnvironmentReferences.pieces(of: text).map { piece in
            switch piece {
            case .literal: redactionMark
            case .reference(let name, nil, let spelling): "${\(spelling)\(name)}"
            case .reference(let name, .some(let fallback), let spelling):
                "${\(spelling)\(name):-\(fallback.isEmpty ? "" : redactionMark)}"
            }
        }.joined()
    }

    /// An object rebuilt with `transform` applied to each member; anything else unchanged.
    private static func mappingMembers(
        of value: JSONValue,
        _ transform: (_ key: String, _ value: JSONValue) -> JSONValue
    ) -> JSONValue {
        guard case .object(let object) = value else { return value }
        return .object(JSONObject(object.map { ($0.key, transform($0.key, $0.value)) }))
    }
}
