import YrdenProtocol

/// The transport of one server entry: which of `command`, `url` and `type` it has, and the fields that go
/// with each.
///
/// Every present field is read first, whatever the transport turns out to be, so a wrong `args` is reported
/// even when the entry also has both `command` and `url`. Fields that belong to the other kind of transport
/// are problems rather than silently ignored: a `headers` on a stdio server would otherwise look as if it sent
/// a token that it never sends.
extension ConfigDecoder {
    enum TransportKind: Equatable {
        case stdio
        case http(fallbackToSSE: Bool)
        case sse
        case websocket
    }

    static let typeValues = ["stdio", "http", "sse", "streamable-http", "streamableHttp", "websocket"]
    static let stdioOnlyKeys = ["args", "env", "cwd"]
    static let remoteOnlyKeys = ["headers", "auth"]

    func decodeTransport(_ object: ObjectReader) -> TransportSpec? {
        let command = object["command"].flatMap(decodeCommand)
        let args = object["args"]?.stringArray()
        let env = object["env"].map(decodeEnvironment)
        let cwd = object["cwd"]?.nonEmptyString("cwd")
        let pinned = typeField(object).flatMap(decodeType)
        let url = urlField(object).flatMap { pinned == .websocket ? decodeWebSocketURL($0) : decodeURL($0) }
        let headers = object["headers"].map(decodeHeaders)
        let auth = object["auth"].map(decodeAuth)
        guard let kind = resolveKind(object, pinned: pinned) else { return nil }
        checkApplicability(object, kind: kind)
        if case .oauth = auth, let headers, headers.keys.contains(where: { $0.lowercased() == "authorization" }) {
            object["headers"]?.report(
                "\"headers\" sets Authorization while \"auth\" is oauth",
                fix: "remove the Authorization header; OAuth supplies its own bearer token"
            )
        }
        switch kind {
        case .stdio:
            guard let command else { return nil }
            return .stdio(command: command, args: args ?? [], env: env ?? [:], cwd: cwd)
        case .http(let fallbackToSSE):
            guard let url else { return nil }
            return .http(url: url, headers: headers ?? [:], auth: auth ?? .none, fallbackToSSE: fallbackToSSE)
        case .sse:
            guard let url else { return nil }
            return .sse(url: url, headers: headers ?? [:], auth: auth ?? .none)
        case .websocket:
            guard let url else { return nil }
            if let auth, Self.sharesOneCaller(auth) == false {
                object["auth"]?.report(
                    "\"auth\" is \(Self.authName(auth)) here, but a websocket server's one connection carries every "
                        + "caller's messages with the headers of its upgrade only",
                    fix: "sign the gateway in once with {\"type\": \"oauth\"} (without perUser), send a static token "
                        + "in \"headers\", or reach the server over \"http\""
                )
                return nil
            }
            return .websocket(url: url, headers: headers ?? [:], auth: auth ?? .none)
        }
    }

    /// `url`, or Windsurf's `serverUrl`; both at once is a problem (reported once, here or by the caller).
    func urlField(_ object: ObjectReader) -> JSONReader? {
        hostAlias(object, key: "url", hostKey: "serverUrl", host: "Windsurf")
    }

    /// `type`, or Cline's `transportType`, whose values (`stdio`, `sse`, `streamableHttp`) are `type`'s.
    func typeField(_ object: ObjectReader) -> JSONReader? {
        hostAlias(object, key: "type", hostKey: "transportType", host: "Cline")
    }

    private func hostAlias(_ object: ObjectReader, key: String, hostKey: String, host: String) -> JSONReader? {
        guard let alias = object[hostKey] else { return object[key] }
        guard object[key] == nil else {
            if !context.hasProblem(at: alias.path.description) {
                alias.report(
                    "\"\(hostKey)\" (\(host)'s name for \"\(key)\") and \"\(key)\" are both set",
                    fix: "keep only \"\(key)\""
                )
            }
            return object[key]
        }
        return alias
    }

    /// The transport the fields ask for, or `nil` after reporting why they do not add up.
    private func resolveKind(_ object: ObjectReader, pinned: TransportKind?) -> TransportKind? {
        let hasCommand = object.contains("command")
        let hasURL = urlField(object) != nil
        switch (hasCommand, hasURL) {
        case (true, true):
            object.report(
                "server has both \"command\" and \"url\"",
                fix: "keep \"command\" to launch a local stdio server, or \"url\" to reach a remote one, not both"
            )
            return nil
        case (false, false):
            guard object.suggestedKeys.isDisjoint(with: ["command", "url"]) else { return nil }
            object.report(
                "server has neither \"command\" nor \"url\"",
                fix: "add \"command\" to launch a local stdio server, or \"url\" to reach a remote one"
            )
            return nil
        default:
            break
        }
        guard let pinField = typeField(object) else { return hasCommand ? .stdio : .http(fallbackToSSE: true) }
        guard let pinned else { return nil }
        let typeName = pinField.value.stringValue ?? ""
        if pinned == .stdio, hasURL {
            pinField.report(
                "\"type\": \(typeName.quoted) needs \"command\", but the server has \"url\"",
                fix: "use \"type\": \"http\", \"sse\" or \"websocket\" for a remote server, or replace \"url\" with "
                    + "\"command\""
            )
            return nil
        }
        if pinned != .stdio, hasCommand {
            pinField.report(
                "\"type\": \(typeName.quoted) needs \"url\", but the server has \"command\"",
                fix: "use \"type\": \"stdio\" for a local server, or replace \"command\" with \"url\""
            )
            return nil
        }
        return pinned
    }

    private func checkApplicability(_ object: ObjectReader, kind: TransportKind) {
        if kind == .stdio {
            for key in Self.remoteOnlyKeys {
                object[key]?.report(
                    "\"\(key)\" applies only to http, sse and websocket servers, and this one runs \"command\"",
                    fix: key == "headers"
                        ? "remove it; pass secrets to a stdio server through \"env\"" : "remove it"
                )
            }
        } else {
            for key in Self.stdioOnlyKeys {
                object[key]?.report(
                    "\"\(key)\" applies only to stdio servers, and this one connects to \"url\"",
                    fix: "remove it; a server reached by \"url\" is not started by the gateway"
                )
            }
        }
    }

    private func decodeType(_ reader: JSONReader) -> TransportKind? {
        guard let name = reader.string() else { return nil }
        switch name {
        case "stdio": return .stdio
        case "http", "streamable-http", "streamableHttp": return .http(fallbackToSSE: false)
        case "sse": return .sse
        case "websocket": return .websocket
        default:
            reader.report(
                "unknown transport type \(name.quoted)",
                fix: KeySuggestion.valueFix(for: name, among: Self.typeValues)
            )
            return nil
        }
    }

    /// The program to run. It is executed directly, not through a shell, so `"npx -y pkg"` cannot work.
    private func decodeCommand(_ reader: JSONReader) -> String? {
        guard let command = reader.nonEmptyString("command") else { return nil }
        let words = command.split(whereSeparator: \.isWhitespace)
        if words.count > 1, !words[0].contains("/") {
            let args = words.dropFirst().map { String($0).quoted }.joined(separator: ", ")
            reader.report(
                "command \(command.quoted) contains spaces, but it is run directly, not through a shell",
                fix: "put the program in \"command\" and the rest in \"args\": \"command\": \(String(words[0]).quoted),"
                    + " \"args\": [\(args)]"
            )
            return nil
        }
        return command
    }

    private func decodeURL(_ reader: JSONReader) -> String? {
        guard let url = reader.string() else { return nil }
        if let finding = ConfigRules.checkHTTPURL(url, shown: reader.writtenString) {
            reader.report(finding)
            return nil
        }
        return url
    }

    private func decodeWebSocketURL(_ reader: JSONReader) -> String? {
        guard let url = reader.string() else { return nil }
        if let finding = ConfigRules.checkWebSocketURL(url, shown: reader.writtenString) {
            reader.report(finding)
            return nil
        }
        return url
    }

    private func decodeEnvironment(_ reader: JSONReader) -> [String: String] {
        var environment: [String: String] = [:]
        for (name, value, entry) in reader.stringMap() ?? [] {
            guard !name.isEmpty, !name.contains("="), !name.contains("\0") else {
                entry.report(
                    "environment variable name \(name.quoted) is not valid",
                    fix: "use a non-empty name without \"=\" (letters, digits and _ work everywhere)"
                )
                continue
            }
            environment[name] = value
        }
        return environment
    }

    private func decodeHeaders(_ reader: JSONReader) -> [String: String] {
        var headers: [String: String] = [:]
        var seen: Set<String> = []
        for (name, value, entry) in reader.stringMap() ?? [] {
            if let finding = ConfigRules.checkHeader(name: name, value: value) {
                entry.report(finding)
                continue
            }
            guard seen.insert(name.lowercased()).inserted else {
                entry.report(
                    "header \(name.quoted) is given twice (header names ignore case)",
                    fix: "keep only one of them"
                )
                continue
            }
            headers[name] = value
        }
        return headers
    }
}

extension ConfigDecoder {
    /// True when one credential serves the whole connection: none, or the gateway's own OAuth sign-in.
    /// A per-caller credential (per-user sign-ins, token exchange, forwarding) needs a header per request.
    static func sharesOneCaller(_ auth: AuthSpec) -> Bool {
        switch auth {
        case .none: true
        case .oauth(let settings): !settings.perUser
        case .tokenExchange, .forward: false
        }
    }

    static func authName(_ auth: AuthSpec) -> String {
        switch auth {
        case .none: "none"
        case .oauth: "oauth with perUser"
        case .tokenExchange: "tokenExchange"
        case .forward: "forward"
        }
    }
}
