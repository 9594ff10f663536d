import YrdenProtocol

/// Secrets hidden from admin API responses, and put back when a client sends a hidden value back.
///
/// The places that hold secrets: every value of a server's `env` and `headers`, a server's `auth.clientSecret`,
/// the gateway's `adminToken` and `clientTokens`, and in a server's `url` the password of its user info and credential-like query
/// parameters. A string there is shown as ``redactionMark`` unless it is empty or holds a
/// `${VAR}` reference: then the secret lives in the environment and the text is shown as written, which tells
/// the operator where the value comes from. A client that GETs an entry and PUTs it back unchanged sends the
/// mark; ``restoringRedacted(_:from:)`` turns it back into the stored value so nothing is lost.
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
                return (
                    key,
                    Self.mappingMembers(of: value) { name, item in
                        switch name {
                        case "adminToken": Self.redacted(item)
                        case "clientTokens": item.arrayValue.map { .array($0.map(Self.redacted)) } ?? item
                        default: item
                        }
                    }
                )
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
                return mappingMembers(of: value) { _, item in redacted(item) }
            }
            if key == "auth" {
                return mappingMembers(of: value) { name, item in name == "clientSecret" ? redacted(item) : item }
            }
            if key == "url", case .string(let url) = value { return .string(redactedURL(url)) }
            return value
        }
    }

    /// `new` with every ``redactionMark`` at a secret place replaced by what `old` has at that place.
    ///
    /// A mark where `old` has nothing stays, and is then an ordinary (and odd) value. Only values are replaced,
    /// in place, so key order and anything the validator should see (a repeated key) stay as the client sent.
    package static func restoringRedacted(_ new: JSONValue, from old: JSONValue?) -> JSONValue {
        guard case .object(var entry) = new, let old else { return new }
        if case .string(let url) = entry["url"], url.contains(redactionMark), case .string(let stored) = old["url"],
            redactedURL(stored) == url
        {
            entry["url"] = .string(stored)
        }
        for (section, key) in secretPlaces(in: entry) where entry[section]?[key] == .string(redactionMark) {
            guard let previous = old[section]?[key], case .object(var members) = entry[section] else { continue }
            members[key] = previous
            entry[section] = .object(members)
        }
        return .object(entry)
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

    /// Query parameters whose names say they carry a credential (`api_key`, `token`, `sig`…).
    private static let secretQueryWords = ["key", "token", "secret", "password", "auth", "sig", "credential"]

    /// `url` with the password of its user info and the values of credential-like query parameters hidden;
    /// `${VAR}` references inside them are shown, like everywhere else.
    static func redactedURL(_ url: String) -> String {
        var result = url
        if let scheme = result.firstRange(of: "://") {
            let authorityEnd = result[scheme.upperBound...].firstIndex { "/?#".contains($0) } ?? result.endIndex
            let authority = result[scheme.upperBound..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                let password = String(authority[authority.index(after: colon)..<at])
                if !password.isEmpty, !referencesEnvironment(password) {
                    result.replaceSubrange(authority.index(after: colon)..<at, with: redactionMark)
                }
            }
        }
        guard let question = result.firstIndex(of: "?") else { return result }
        let fragmentStart = result[question...].firstIndex(of: "#") ?? result.endIndex
        let parameters = result[result.index(after: question)..<fragmentStart].split(
            separator: "&",
            omittingEmptySubsequences: false
        )
        let query = parameters.map { parameter -> String in
            guard let equals = parameter.firstIndex(of: "=") else { return String(parameter) }
            let name = parameter[..<equals].lowercased()
            let value = String(parameter[parameter.index(after: equals)...])
            guard secretQueryWords.contains(where: { name.contains($0) }), !value.isEmpty, !referencesEnvironment(value)
            else { return String(parameter) }
            return "\(parameter[..<equals])=\(redactionMark)"
        }
        return String(result[...question]) + query.joined(separator: "&") + String(result[fragmentStart...])
    }

    private static func redacted(_ value: JSONValue) -> JSONValue {
        guard case .string(let text) = value, !text.isEmpty, !referencesEnvironment(text) else { return value }
        return .string(redactionMark)
    }

    /// Whether `text` has a well-formed `${NAME}` or `${NAME:-default}`; `$${` is an escaped `$`, not one.
    static func referencesEnvironment(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == UInt8(ascii: "$") else {
                index += 1
                continue
            }
            if bytes[index + 1] == UInt8(ascii: "$") {
                index += 2
                continue
            }
            if bytes[index + 1] == UInt8(ascii: "{"),
                let close = bytes[(index + 2)...].firstIndex(of: UInt8(ascii: "}"))
            {
                let body = String(decoding: bytes[(index + 2)..<close], as: UTF8.self)
                let name = body.firstRange(of: ":-").map { body[..<$0.lowerBound] } ?? body[...]
                if EnvironmentExpansion.isValidName(name) { return true }
            }
            index += 1
        }
        return false
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
