/// One operation of `openapi.yaml`, named by its `operationId`, with the server id from the path where it has one.
enum AdminOperation: Hashable, Sendable {
    case listServers
    case createServer
    case getServer(String)
    case replaceServer(String)
    case patchServer(String)
    case deleteServer(String)
    case connectServer(String)
    case disconnectServer(String)
    case restartServer(String)
    case startServerAuth(String)
    case completeServerAuth(String)
    case deleteServerTokens(String)
    case listServerTools(String)
    case listServerPrompts(String)
    case listServerResources(String)
    case listTools
    case listToolPins
    /// Server id, then the tool's upstream name.
    case approveTool(String, String)
    case listLogs
    case streamEvents
    case getConfig
    case replaceConfig
    case listProfiles
    case getProfile(String)
    case putProfile(String)
    case deleteProfile(String)
    case listProfileTools(String)
}

/// What a method and path under `/api/v1/` come to: an operation, a path that exists without that method
/// (405, with the methods it has), or no such path (404).
enum AdminRouting: Hashable, Sendable {
    case operation(AdminOperation)
    case methodNotAllowed(allowed: [String])
    case notFound

    /// Resolves `method` on `path` (the full path, `/api/v1/servers/time`). The server id segment is taken as
    /// it is; whether it names a server is the handler's question.
    init(method: String, path: String) {
        guard path.hasPrefix(AdminAPI.prefix) else {
            self = .notFound
            return
        }
        let segments = path.dropFirst(AdminAPI.prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        let methods = Self.operations(at: segments.map(String.init))
        if methods.isEmpty {
            self = .notFound
        } else if let operation = methods.first(where: { $0.method == method })?.operation {
            self = .operation(operation)
        } else {
            self = .methodNotAllowed(allowed: methods.map(\.method))
        }
    }

    /// The table: every path of the API with the operation each of its methods runs.
    private static func operations(at segments: [String]) -> [(method: String, operation: AdminOperation)] {
        switch segments.count {
        case 1:
            switch segments[0] {
            case "servers": return [("GET", .listServers), ("POST", .createServer)]
            case "tools": return [("GET", .listTools)]
            case "tool-pins": return [("GET", .listToolPins)]
            case "logs": return [("GET", .listLogs)]
            case "events": return [("GET", .streamEvents)]
            case "config": return [("GET", .getConfig), ("PUT", .replaceConfig)]
            case "profiles": return [("GET", .listProfiles)]
            default: return []
            }
        case 2 where segments[0] == "profiles" && !segments[1].isEmpty:
            let name = segments[1]
            return [("GET", .getProfile(name)), ("PUT", .putProfile(name)), ("DELETE", .deleteProfile(name))]
        case 3 where segments[0] == "profiles" && !segments[1].isEmpty && segments[2] == "tools":
            return [("GET", .listProfileTools(segments[1]))]
        case 2 where segments[0] == "servers" && !segments[1].isEmpty:
            let id = segments[1]
            return [
                ("GET", .getServer(id)), ("PUT", .replaceServer(id)), ("PATCH", .patchServer(id)),
                ("DELETE", .deleteServer(id)),
            ]
        case 3 where segments[0] == "servers" && !segments[1].isEmpty:
            let id = segments[1]
            switch segments[2] {
            case "connect": return [("POST", .connectServer(id))]
            case "disconnect": return [("POST", .disconnectServer(id))]
            case "restart": return [("POST", .restartServer(id))]
            case "auth": return [("POST", .startServerAuth(id))]
            case "tokens": return [("DELETE", .deleteServerTokens(id))]
            case "tools": return [("GET", .listServerTools(id))]
            case "prompts": return [("GET", .listServerPrompts(id))]
            case "resources": return [("GET", .listServerResources(id))]
            default: return []
            }
        case 4
        where segments[0] == "servers" && !segments[1].isEmpty && segments[2] == "auth"
            && segments[3] == "callback":
            return [("POST", .completeServerAuth(segments[1]))]
        case 5...
        where segments[0] == "servers" && !segments[1].isEmpty && segments[2] == "tools"
            && segments.last == "approve":
            // A tool name may hold a slash (decoded from %2F), so it is every segment between the two.
            let tool = segments[3..<(segments.count - 1)].joined(separator: "/")
            return tool.isEmpty ? [] : [("POST", .approveTool(segments[1], tool))]
        default:
            return []
        }
    }
}

extension AdminOperation {
    /// The server the path names, for the operations under `/servers/{id}`.
    var serverID: String? {
        switch self {
        case .getServer(let id), .replaceServer(let id), .patchServer(let id), .deleteServer(let id),
            .connectServer(let id), .disconnectServer(let id), .restartServer(let id), .startServerAuth(let id),
            .completeServerAuth(let id), .deleteServerTokens(let id), .listServerTools(let id),
            .listServerPrompts(let id), .listServerResources(let id), .approveTool(let id, _):
            id
        case .listServers, .createServer, .listTools, .listToolPins, .listLogs, .streamEvents, .getConfig,
            .replaceConfig, .listProfiles, .getProfile, .putProfile, .deleteProfile, .listProfileTools:
            nil
        }
    }
}
