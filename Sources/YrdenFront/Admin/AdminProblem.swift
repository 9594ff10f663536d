import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// An RFC 9457 problem document (`application/problem+json`): the body of every admin API error.
///
/// Validation problems carry `errors[]` worded as `yrden check-config` words them, so an operator reads the
/// same path, message and fix whether the mistake was in a file or in a request.
struct AdminProblem: Error, Sendable, Hashable {
    var status: Int
    var title: String
    var detail: String
    var errors: [ConfigProblem] = []
    var headers: HTTPHeaders = []

    static let contentType = "application/problem+json"

    var json: JSONValue {
        var object: JSONObject = [
            "type": "about:blank", "title": .string(title), "status": .int(status), "detail": .string(detail),
        ]
        if !errors.isEmpty {
            object["errors"] = .array(
                errors.map { ["path": .string($0.path), "message": .string($0.message), "fix": .string($0.fix)] }
            )
        }
        return .object(object)
    }

    var response: HTTPResponse {
        var headers = headers
        headers.add(name: "Content-Type", value: Self.contentType)
        return HTTPResponse(status: status, headers: headers, body: .bytes(json.serialized()))
    }
}

extension AdminProblem {
    static func notFound(_ detail: String) -> AdminProblem {
        AdminProblem(status: 404, title: "Not Found", detail: detail)
    }

    static func unknownServer(_ id: String) -> AdminProblem {
        AdminProblem(status: 404, title: "Unknown server", detail: "no server \(JSONValue.string(id).jsonText)")
    }

    static func methodNotAllowed(_ method: String, allowed: [String]) -> AdminProblem {
        let list = allowed.joined(separator: ", ")
        return AdminProblem(
            status: 405,
            title: "Method Not Allowed",
            detail: "\(method) is not allowed here; this path supports \(list)",
            headers: ["Allow": list]
        )
    }

    static func unauthorized(tokenSent: Bool) -> AdminProblem {
        AdminProblem(
            status: 401,
            title: "Unauthorized",
            detail: tokenSent
                ? "the bearer token is not the gateway's admin token"
                : "this gateway has an admin token: send it as Authorization: Bearer <token>",
            headers: ["WWW-Authenticate": tokenSent ? #"Bearer error="invalid_token""# : "Bearer"]
        )
    }

    static func forbidden(_ detail: String) -> AdminProblem {
        AdminProblem(status: 403, title: "Forbidden", detail: detail)
    }

    static func badRequest(_ detail: String, errors: [ConfigProblem] = []) -> AdminProblem {
        AdminProblem(status: 400, title: "Bad Request", detail: detail, errors: errors)
    }

    /// A body that is not JSON at all: `detail` says where parsing stopped, and there is no `errors[]`.
    static func invalidJSON(_ error: JSONParseError) -> AdminProblem {
        badRequest("the body is not JSON: \(error)")
    }

    static func unsupportedMediaType(_ contentType: String?, expected: String) -> AdminProblem {
        AdminProblem(
            status: 415,
            title: "Unsupported Media Type",
            detail: contentType.map { "the body is \($0); send \(expected)" }
                ?? "the request has no Content-Type; send \(expected)"
        )
    }

    static func conflict(_ detail: String, errors: [ConfigProblem] = []) -> AdminProblem {
        AdminProblem(status: 409, title: "Conflict", detail: detail, errors: errors)
    }

    /// Every problem of a config or entry the validator refused; `title` says what was being validated.
    static func invalid(_ problems: [ConfigProblem], title: String, subject: String) -> AdminProblem {
        let problems =
            problems.isEmpty
            ? [ConfigProblem(path: "", message: "the \(subject) was refused", fix: "check it with yrden check-config")]
            : problems
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return AdminProblem(status: 400, title: title, detail: "The \(subject) has \(count).", errors: problems)
    }

    /// The answer to a change the config store refused. `subject` names what was sent ("server entry").
    init(_ error: ConfigStoreError, title: String, subject: String) {
        switch error {
        case .invalid(let configError):
            self = .invalid(configError.problems, title: title, subject: subject)
        case .unknownServer(let id):
            self = .unknownServer(id)
        case .duplicateServer(let id):
            self = .conflict("server \(JSONValue.string(id).jsonText) already exists")
        case .conflict(let message):
            self = .conflict(message, errors: Self.restartOnlySetting(in: message).map { [$0] } ?? [])
        case .storage(let reason):
            self = AdminProblem(status: 500, title: "Not saved", detail: reason)
        case .versionMismatch(let current):
            self = AdminProblem(
                status: 412,
                title: "Precondition Failed",
                detail: "the \(subject) changed since it was read: If-Match does not name its current version; "
                    + "read it again, reapply the change and send the new ETag",
                headers: ["ETag": current]
            )
        case .busy(let reason):
            self = AdminProblem(status: 503, title: "Busy", detail: reason, headers: ["Retry-After": "1"])
        case .storeUnavailable(let reason):
            self = AdminProblem(
                status: 503,
                title: "Store unavailable",
                detail: "\(reason); nothing changed, and MCP goes on from what this replica holds",
                headers: ["Retry-After": "5"]
            )
        case .stillStopping(let late):
            self = AdminProblem(status: 504, title: "Still stopping", detail: late.description)
        }
    }

    /// The store words a refused gateway setting as `gateway.<key> cannot change …; <what to do>`: that becomes
    /// the `errors[]` entry naming the field.
    static func restartOnlySetting(in message: String) -> ConfigProblem? {
        guard message.hasPrefix("gateway."), let space = message.firstIndex(of: " ") else { return nil }
        let parts = message.split(separator: "; ", maxSplits: 1)
        return ConfigProblem(
            path: String(message[..<space]),
            message: String(parts[0]),
            fix: parts.count > 1 ? String(parts[1]) : "edit the config file and restart the gateway"
        )
    }
}
