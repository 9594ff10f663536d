import Testing
import YrdenHTTPServer

@testable import YrdenFront

/// The opening handshake of the downstream WebSocket (RFC 6455 §4.2): what is taken, and why the rest is refused.
@Suite struct WebSocketHandshakeTests {
    private func request(_ headers: HTTPHeaders, method: String = "GET") -> HTTPRequest {
        HTTPRequest(method: method, path: "/ws", headers: headers)
    }

    private let upgrade: HTTPHeaders = [
        ("Upgrade", "websocket"), ("Connection", "keep-alive, Upgrade"), ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ]

    @Test func theAcceptKeyIsTheRFCsExample() {
        #expect(WebSocketHandshake.accept("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func theMCPSubprotocolIsChosenWhenOffered() throws {
        var headers = upgrade
        headers.add(name: "Sec-WebSocket-Protocol", value: "chat, mcp")
        let handshake = try WebSocketHandshake.read(request(headers)).get()
        #expect(handshake.subprotocol == "mcp")
        #expect(handshake.headers["Sec-WebSocket-Protocol"] == "mcp")
        #expect(handshake.headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(handshake.headers["Upgrade"] == "websocket")
    }

    @Test func noSubprotocolOfferedIsAnsweredWithout() throws {
        let handshake = try WebSocketHandshake.read(request(upgrade)).get()
        #expect(handshake.subprotocol == nil)
        #expect(handshake.headers["Sec-WebSocket-Protocol"] == nil)
    }

    @Test func otherSubprotocolsAloneAreRefused() {
        var headers = upgrade
        headers.add(name: "Sec-WebSocket-Protocol", value: "chat")
        #expect(status(of: request(headers)) == 400)
    }

    @Test func aPlainGetIsToldToUpgrade() {
        guard case .failure(let refusal) = WebSocketHandshake.read(request([])) else {
            Issue.record("a plain GET was taken")
            return
        }
        #expect(refusal.status == 426)
        #expect(refusal.headers.contains { $0 == ("Upgrade", "websocket") })
    }

    @Test func brokenHandshakesAreRefused() {
        #expect(status(of: request(upgrade, method: "POST")) == 405)
        var otherVersion = upgrade
        otherVersion.replaceOrAdd(name: "Sec-WebSocket-Version", value: "8")
        #expect(status(of: request(otherVersion)) == 426)
        var noConnection = upgrade
        noConnection.replaceOrAdd(name: "Connection", value: "keep-alive")
        #expect(status(of: request(noConnection)) == 400)
        var shortKey = upgrade
        shortKey.replaceOrAdd(name: "Sec-WebSocket-Key", value: "c2hvcnQ=")
        #expect(status(of: request(shortKey)) == 400)
    }

    private func status(of request: HTTPRequest) -> Int? {
        guard case .failure(let refusal) = WebSocketHandshake.read(request) else { return nil }
        return refusal.status
    }
}
