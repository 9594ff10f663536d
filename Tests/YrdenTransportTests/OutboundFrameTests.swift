import Testing
import YrdenProtocol

@testable import YrdenTransport

@Suite struct OutboundFrameTests {
    @Test func outboundFrameKnowsRequestsFromNotifications() {
        let request = OutboundFrame(Array(#"{"jsonrpc":"2.0","id":3,"method":"tools/call"}"#.utf8))
        #expect(request.id == .int(3) && request.method == "tools/call" && request.isRequest)
        let notification = OutboundFrame(Array(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8))
        #expect(notification.id == nil && notification.method == "notifications/initialized")
        let response = OutboundFrame(Array(#"{"jsonrpc":"2.0","id":"s-1","result":{}}"#.utf8))
        #expect(!response.isRequest && response.method == nil)
    }

    @Test func aModernRequestCarriesTheRoutingHeaders() {
        let call = OutboundFrame(
            Array(
                #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Émile","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
                    .utf8
            )
        )
        #expect(call.modernHeaders.map(\.name) == ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"])
        #expect(call.modernHeaders.map(\.value) == ["2026-07-28", "tools/call", "=?base64?w4ltaWxl?="])
        let read = OutboundFrame(
            Array(
                #"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
                    .utf8
            )
        )
        #expect(read.modernHeaders.last?.value == "file:///x")
        let list = OutboundFrame(
            Array(
                #"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#
                    .utf8
            )
        )
        #expect(list.modernHeaders.map(\.name) == ["MCP-Protocol-Version", "Mcp-Method"], "no Mcp-Name for a list")
        let handshakeEra = OutboundFrame(
            Array(#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}"#.utf8)
        )
        #expect(handshakeEra.modernHeaders.isEmpty)
    }
}
