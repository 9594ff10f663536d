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
}
