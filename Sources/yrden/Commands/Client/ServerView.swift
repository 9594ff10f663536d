import YrdenProtocol

/// The parts of a `Server` (openapi.yaml) the commands show and wait on, read leniently: a key a newer
/// gateway adds is ignored, one an older gateway lacks reads as absent.
struct ServerView: Sendable {
    var id: String
    var transport: String
    var state: String
    var tools = 0
    var prompts = 0
    var resources = 0
    /// `lastError.message`: why the last connection or attempt failed.
    var lastError: String?
    /// `reconnect.attempt`: the retry scheduled (state `failed`) or under way (state `connecting`).
    var retry: Int?
    /// `auth.status`, `auth.authorizationURL` and `auth.reason` of an OAuth server.
    var auth: AuthView?

    init(_ json: JSONValue) throws(ClientFailure) {
        guard let id = json["id"]?.stringValue, let state = json["state"]?.stringValue else {
            throw ClientFailure("the gateway's answer is not a server (no id or state)")
        }
        self.id = id
        self.state = state
        transport = json["transport"]?.stringValue ?? "-"
        tools = json["counts"]?["tools"]?.intValue ?? 0
        prompts = json["counts"]?["prompts"]?.intValue ?? 0
        resources = json["counts"]?["resources"]?.intValue ?? 0
        lastError = json["lastError"]?["message"]?.stringValue
        retry = json["reconnect"]?["attempt"]?.intValue
        auth = json["auth"].flatMap(AuthView.init)
    }

    /// "3 tools, 1 prompt, 0 resources".
    var countsText: String {
        [(tools, "tool"), (prompts, "prompt"), (resources, "resource")]
            .map { count, noun in "\(count) \(noun)\(count == 1 ? "" : "s")" }
            .joined(separator: ", ")
    }
}

/// An `AuthProgress` (openapi.yaml): where an OAuth sign-in is.
struct AuthView: Sendable, Hashable {
    var status: String
    var authorizationURL: String?
    var reason: String?

    init?(_ json: JSONValue) {
        guard let status = json["status"]?.stringValue else { return nil }
        self.status = status
        authorizationURL = json["authorizationURL"]?.stringValue
        reason = json["reason"]?.stringValue
    }
}
