import Testing

@testable import YrdenFront

@Suite struct AdminRoutingTests {
    @Test(arguments: [
        ("GET", "/api/v1/servers", AdminOperation.listServers),
        ("POST", "/api/v1/servers", .createServer),
        ("GET", "/api/v1/servers/time", .getServer("time")),
        ("PUT", "/api/v1/servers/time", .replaceServer("time")),
        ("PATCH", "/api/v1/servers/time", .patchServer("time")),
        ("DELETE", "/api/v1/servers/time", .deleteServer("time")),
        ("POST", "/api/v1/servers/time/connect", .connectServer("time")),
        ("POST", "/api/v1/servers/time/disconnect", .disconnectServer("time")),
        ("POST", "/api/v1/servers/time/restart", .restartServer("time")),
        ("POST", "/api/v1/servers/time/auth", .startServerAuth("time")),
        ("POST", "/api/v1/servers/time/auth/callback", .completeServerAuth("time")),
        ("DELETE", "/api/v1/servers/time/tokens", .deleteServerTokens("time")),
        ("GET", "/api/v1/servers/time/tools", .listServerTools("time")),
        ("GET", "/api/v1/servers/time/prompts", .listServerPrompts("time")),
        ("GET", "/api/v1/servers/time/resources", .listServerResources("time")),
        ("GET", "/api/v1/tools", .listTools),
        ("GET", "/api/v1/tool-pins", .listToolPins),
        ("POST", "/api/v1/servers/time/tools/now/approve", .approveTool("time", "now")),
        ("GET", "/api/v1/logs", .listLogs),
        ("GET", "/api/v1/events", .streamEvents),
        ("GET", "/api/v1/config", .getConfig),
        ("PUT", "/api/v1/config", .replaceConfig),
    ])
    func everyOperationOfTheContractHasItsRoute(_ method: String, _ path: String, _ operation: AdminOperation) {
        #expect(AdminRouting(method: method, path: path) == .operation(operation))
    }

    @Test func aMethodThePathDoesNotHaveIsAnsweredWithTheOnesItHas() {
        #expect(AdminRouting(method: "DELETE", path: "/api/v1/servers") == .methodNotAllowed(allowed: ["GET", "POST"]))
        #expect(
            AdminRouting(method: "POST", path: "/api/v1/servers/time")
                == .methodNotAllowed(allowed: ["GET", "PUT", "PATCH", "DELETE"])
        )
        #expect(
            AdminRouting(method: "GET", path: "/api/v1/servers/time/connect") == .methodNotAllowed(allowed: ["POST"])
        )
        #expect(AdminRouting(method: "POST", path: "/api/v1/events") == .methodNotAllowed(allowed: ["GET"]))
        #expect(AdminRouting(method: "get", path: "/api/v1/tools") == .methodNotAllowed(allowed: ["GET"]))
    }

    @Test(arguments: [
        "/api/v1/", "/api/v1/server", "/api/v1/servers/", "/api/v1/servers//tools", "/api/v1/servers/time/",
        "/api/v1/servers/time/nothing", "/api/v1/servers/time/auth/other", "/api/v1/servers/time/tools/x",
        "/api/v1/tools/", "/api/v2/servers", "/mcp", "/api/v1/servers/time/tools//approve",
        "/api/v1/servers/time/tools/x/approve/more", "/api/v1/tool-pins/x",
    ])
    func pathsOutsideTheContractAreNotFound(_ path: String) {
        #expect(AdminRouting(method: "GET", path: path) == .notFound)
    }

    @Test func theServerIdIsTakenFromThePathAsItIs() {
        #expect(AdminRouting(method: "GET", path: "/api/v1/servers/Not Valid") == .operation(.getServer("Not Valid")))
        #expect(AdminOperation.getServer("a").serverID == "a")
        #expect(AdminOperation.listServerResources("b").serverID == "b")
        #expect(AdminOperation.listServers.serverID == nil)
    }

    @Test func aToolNameMayHoldASlash() {
        #expect(
            AdminRouting(method: "POST", path: "/api/v1/servers/fs/tools/files/read/approve")
                == .operation(.approveTool("fs", "files/read"))
        )
        #expect(AdminOperation.approveTool("fs", "x").serverID == "fs")
    }

    @Test func serverIdsFollowTheConfigRule() {
        for valid in ["time", "a", "0-tools", "github_tools", String(repeating: "a", count: 63)] {
            #expect(ServerIdentifier.isValid(valid, separator: "__"), "\(valid)")
        }
        for invalid in ["", "Time", "-a", "_a", "a b", "a.b", "a__b", String(repeating: "a", count: 64), "é"] {
            #expect(!ServerIdentifier.isValid(invalid, separator: "__"), "\(invalid)")
        }
        #expect(ServerIdentifier.isValid("a__b", separator: "."))
        #expect(!ServerIdentifier.isValid("a-b", separator: "-"))
    }
}
