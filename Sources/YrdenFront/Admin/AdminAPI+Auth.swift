import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `/servers/{id}/auth`, `/auth/callback` and `/tokens`: OAuth sign-in of upstream servers.
///
/// Starting a sign-in answers at once with the authorization URL to open; the server connects by itself when
/// the user has signed in (`server.state` events follow). The callback route is for a browser on another
/// machine: the operator pastes the URL it was redirected to.
extension AdminAPI {
    /// The sign-ins of the credentials the gateway was built with.
    var signIns: SignInControl { SignInControl(gateway: gateway) }

    func startServerAuth(_ id: String) async throws(AdminProblem) -> HTTPResponse {
        try requireOAuth(id)
        let status: SignInStatus
        do { status = try await signIns.start(id) } catch { throw Self.problem(for: error) }
        return FrontResponses.json(202, Self.authProgress(status))
    }

    func completeServerAuth(_ id: String, _ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        let body = try AdminRequestBody.parse(request, as: AdminRequestBody.json).get()
        try Self.checkCallback(body)
        try requireOAuth(id)
        let completed: (outcome: SignInOutcome, status: SignInStatus)
        do {
            completed = try await signIns.complete(id, redirectURL: body["url"]?.stringValue ?? "")
        } catch {
            throw Self.problem(for: error)
        }
        if case .rejected(let reason) = completed.outcome { throw .badRequest(reason) }
        return FrontResponses.json(200, Self.authProgress(completed.status))
    }

    func deleteServerTokens(_ id: String) async throws(AdminProblem) -> HTTPResponse {
        try requireOAuth(id, allowDisabled: true)
        do { try await signIns.signOut(id) } catch { throw Self.problem(for: error) }
        return HTTPResponse(status: 204)
    }

    /// 404 for an unknown server, 409 unless it uses OAuth (or when it is disabled).
    private func requireOAuth(_ id: String, allowDisabled: Bool = false) throws(AdminProblem) {
        let status = try status(of: id)
        guard status.spec.transport.oauthSettings != nil else {
            throw .conflict(#"server "\#(id)" does not use OAuth (its entry has no "auth": {"type": "oauth"})"#)
        }
        guard allowDisabled || !status.spec.disabled else { throw Self.disabledConflict(id) }
    }

    /// `AuthProgress`: the status, the URL to open while waiting for the user, the reason of a failure.
    static func authProgress(_ status: SignInStatus) -> JSONValue {
        var object: JSONObject = ["status": .string(status.status)]
        if let url = status.authorizationURL { object["authorizationURL"] = .string(url) }
        if let expiresAt = status.expiresAt { object["expiresAt"] = .string(RFC3339.string(epochSeconds: expiresAt)) }
        if let reason = status.reason { object["reason"] = .string(reason) }
        return .object(object)
    }

    /// An `AuthCallback` body: an object whose only member is the string `url`.
    static func checkCallback(_ body: JSONValue) throws(AdminProblem) {
        guard case .object(let object) = body else {
            throw .badRequest(
                "the body is \(body.typeName), not an object",
                errors: [
                    ConfigProblem(path: "", message: "expected an object", fix: #"send {"url": "<redirect URL>"}"#)
                ]
            )
        }
        var problems: [ConfigProblem] = []
        for (key, _) in object where key != "url" {
            problems.append(
                ConfigProblem(path: key, message: "unknown key \(JSONValue.string(key).jsonText)", fix: "send only url")
            )
        }
        if object["url"]?.stringValue == nil {
            problems.append(
                ConfigProblem(
                    path: "url",
                    message: object["url"] == nil ? "url is missing" : "url is not a string",
                    fix: "send the full URL the browser was redirected to"
                )
            )
        }
        guard problems.isEmpty else { throw .badRequest("the body is not a valid callback", errors: problems) }
    }
}
