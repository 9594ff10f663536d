import YrdenProtocol

/// What the audit trail says of one request that went to an upstream: who (the caller's user and how it was
/// proved), where (the endpoint), what (the method, the tool, prompt or resource, the server), a digest of its
/// arguments (SHA-256 of their canonical JSON: equal arguments give equal digests, and no value is written),
/// how it ended, and how long it took.
enum CallAudit {
    /// How a forwarded request ended, as the trail says it.
    enum Outcome {
        case answered(Result<JSONValue, JSONRPCError>)
        /// The gateway could not get an answer (not connected, died, timed out): what it told the client.
        case failed(JSONRPCError)
    }

    static func record(
        method: String,
        params: JSONValue?,
        server: String,
        scope: CatalogScope,
        caller: Caller,
        outcome: Outcome,
        duration: Duration
    ) -> JSONObject {
        var record: JSONObject = ["kind": "mcp"]
        record["user"] = .string(caller.user)
        record["auth"] = .string(caller.authentication.rawValue)
        switch scope {
        case .gateway: record["endpoint"] = "/mcp"
        case .profile(let name):
            record["endpoint"] = .string("/mcp/" + name)
            record["profile"] = .string(name)
        case .server(let id): record["endpoint"] = .string("/servers/\(id)/mcp")
        }
        record["method"] = .string(method)
        switch method {
        case MCPMethod.toolsCall: record["tool"] = params?["name"]
        case MCPMethod.promptsGet: record["prompt"] = params?["name"]
        case MCPMethod.resourcesRead: record["resource"] = params?["uri"]
        case MCPMethod.completionComplete:
            record["ref"] = params?["ref"]?["name"] ?? params?["ref"]?["uri"]
        default: break
        }
        record["server"] = .string(server)
        if let arguments = params?["arguments"] ?? params?["argument"] {
            record["arguments"] = .string("sha256:" + CanonicalJSON.sha256(arguments))
        }
        switch outcome {
        case .answered(.success(let result)):
            record["outcome"] = result["isError"] == .bool(true) ? "toolError" : "ok"
        case .answered(.failure(let error)):
            record["outcome"] = "error"
            record["code"] = .int(error.code)
        case .failed(let error):
            record["outcome"] = "failed"
            record["code"] = .int(error.code)
        }
        record["durationMs"] = .double((TokenBucket.seconds(duration) * 1e6).rounded() / 1e3)
        return record
    }

    /// A call refused by a limit before it went anywhere: said in the trail too, since a user hitting their
    /// quota is something an operator asks about.
    static func refusal(
        method: String,
        params: JSONValue?,
        server: String,
        scope: CatalogScope,
        caller: Caller,
        refusal: RateLimited
    ) -> JSONObject {
        var record = Self.record(
            method: method,
            params: params,
            server: server,
            scope: scope,
            caller: caller,
            outcome: .failed(refusal.rpcError),
            duration: .zero
        )
        record["outcome"] = "limited"
        record["limit"] = .string(refusal.kind)
        record["durationMs"] = nil
        return record
    }
}
