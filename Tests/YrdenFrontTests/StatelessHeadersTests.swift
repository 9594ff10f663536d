import Testing
import YrdenHTTPServer
import YrdenProtocol

@testable import YrdenFront

/// The routing headers of 2026-07-28 against the body, and the HTTP status each answer gets.
@Suite struct StatelessHeadersTests {
    static let call = JSONRPCRequest(
        id: .int(1),
        method: "tools/call",
        params: ["name": "a__échø", "_meta": [ModernEnvelope.versionKey: "2026-07-28"]]
    )

    static func headers(_ fields: [(String, String)]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        return headers
    }

    @Test func matchingHeadersPassWithTheNameInBase64() {
        let name = "=?base64?YV9fw6ljaMO4?="
        let sent = Self.headers([
            ("mcp-protocol-version", "2026-07-28"), ("MCP-METHOD", "tools/call"), ("Mcp-Name", name),
        ])
        #expect(MCPEndpoint.headerMismatch(Self.call, sent) == nil)
    }

    @Test func aRepeatedOrDifferingHeaderIs32020() {
        let repeated = Self.headers([
            ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "=?base64?YV9fw6ljaMO4?="),
        ])
        #expect(MCPEndpoint.headerMismatch(Self.call, repeated)?.code == -32020)
        let plainName = Self.headers([
            ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "a__other"),
        ])
        #expect(MCPEndpoint.headerMismatch(Self.call, plainName)?.code == -32020)
    }

    @Test(arguments: [(-32602, 400), (-32020, 400), (-32022, 400), (-32601, 404), (-32603, 200), (-32000, 200)])
    func errorsGetTheStatusOfTheirCode(_ code: Int, _ status: Int) {
        let response = JSONRPCResponse(id: .int(1), error: JSONRPCError(code: code, message: "m"))
        #expect(MCPEndpoint.status(of: response) == status)
    }
}
