import Testing

@testable import YrdenTransport

@Suite struct LegacySSEEndpointTests {
    private func postURL(_ data: String, sse: String = "http://127.0.0.1:9000/api/sse") throws(UpstreamError) -> String
    {
        let endpoint = LegacySSEEndpoint(
            url: sse,
            headers: ["Authorization": "Bearer secret"],
            requestTimeout: .seconds(5),
            endpointTimeout: .seconds(5)
        )
        return try endpoint.postURL(fromEndpointEvent: data)
    }

    private func refusal(_ data: String, sse: String = "http://127.0.0.1:9000/api/sse") -> UpstreamError? {
        do {
            _ = try postURL(data, sse: sse)
            return nil
        } catch {
            return error
        }
    }

    @Test func anAbsolutePathKeepsTheOriginAndItsQuery() throws {
        #expect(
            try postURL("/messages/?session_id=ab12") == "http://127.0.0.1:9000/messages/?session_id=ab12"
        )
    }

    @Test func aRelativePathResolvesAgainstTheSSEURLsDirectory() throws {
        #expect(try postURL("messages?sessionId=7") == "http://127.0.0.1:9000/api/messages?sessionId=7")
        #expect(try postURL("../messages") == "http://127.0.0.1:9000/messages")
    }

    @Test func surroundingWhitespaceIsIgnored() throws {
        #expect(try postURL("  /messages?x=1\n") == "http://127.0.0.1:9000/messages?x=1")
    }

    @Test func anAbsoluteURLOnTheSameOriginIsAccepted() throws {
        #expect(try postURL("http://127.0.0.1:9000/m?s=1") == "http://127.0.0.1:9000/m?s=1")
        // The scheme's default port is the same origin whether or not it is written.
        #expect(try postURL("https://example.com:443/m", sse: "https://EXAMPLE.com/sse") == "https://example.com:443/m")
    }

    @Test(arguments: [
        "http://evil.example/messages",  // another host
        "http://127.0.0.1:9001/messages",  // another port
        "https://127.0.0.1:9000/messages",  // another scheme
        "//evil.example/messages",  // scheme-relative, another host
        "javascript:alert(1)",  // not http at all
    ])
    func anEndpointOnAnotherOriginIsRefused(data: String) {
        let error = refusal(data)
        #expect(error?.kind == .protocol)
        #expect(error?.message.contains("another origin") == true)
    }

    @Test func anEndpointWithUserInfoIsRefused() {
        #expect(refusal("http://someone:pw@127.0.0.1:9000/messages")?.kind == .protocol)
    }

    @Test func anEmptyEndpointIsRefused() {
        #expect(refusal(" \n")?.kind == .protocol)
    }

    @Test func aSSEURLThatIsNotHTTPIsRefused() {
        #expect(refusal("/messages", sse: "ftp://127.0.0.1/sse")?.kind == .protocol)
    }
}
