import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenProtocol

/// The body of `POST /servers` (`NewServer`: `id` and `config`), and how a refusal of it is worded.
enum NewServerRequest {
    /// The `id` and `config` of a `NewServer` body, or every problem with its shape.
    static func parse(_ body: JSONValue) throws(AdminProblem) -> (id: String, entry: JSONValue) {
        guard case .object(let object) = body else {
            throw .invalid(
                [
                    ConfigProblem(
                        path: "",
                        message: "the body is \(body.typeName), not an object",
                        fix: #"send {"id": "<server id>", "config": {<entry as in mcpServers>}}"#
                    )
                ],
                title: AdminAPI.entryTitle,
                subject: "request"
            )
        }
        var problems: [ConfigProblem] = []
        for (key, _) in object where key != "id" && key != "config" {
            problems.append(
                ConfigProblem(
                    path: key,
                    message: "unknown key \(JSONValue.string(key).jsonText)",
                    fix: "a new server has only \"id\" and \"config\"; put entry keys inside \"config\""
                )
            )
        }
        let id = object["id"]?.stringValue
        if id == nil {
            problems.append(
                ConfigProblem(
                    path: "id",
                    message: object["id"].map { "id is \($0.typeName), not a string" } ?? "id is missing",
                    fix: #"name the server, such as "id": "time""#
                )
            )
        }
        let entry = object["config"]
        if entry == nil {
            problems.append(
                ConfigProblem(
                    path: "config",
                    message: "config is missing",
                    fix: #"send the entry as it would appear in mcpServers, such as "config": {"command": "uvx"}"#
                )
            )
        }
        guard problems.isEmpty, let id, let entry else {
            throw .invalid(problems, title: AdminAPI.entryTitle, subject: "request")
        }
        return (id, entry)
    }

    /// The answer to a refused `createServer`. A bad id is a problem of the request's `id`, not of an entry in
    /// the file, so it gets that path.
    static func refused(_ error: ConfigStoreError) -> AdminProblem {
        guard case .invalid(var configError) = error else {
            return AdminProblem(error, title: AdminAPI.entryTitle, subject: "server entry")
        }
        for index in configError.problems.indices where configError.problems[index].message.hasPrefix("server id ") {
            configError.problems[index].path = "id"
        }
        return AdminProblem(.invalid(configError), title: AdminAPI.entryTitle, subject: "server entry")
    }
}
