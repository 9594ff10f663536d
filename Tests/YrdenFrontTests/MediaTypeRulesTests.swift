import Testing

@testable import YrdenFront

/// The media types `/mcp` requires: JSON bodies (else 415), and Accept lists the answers it gives (else 406).
@Suite struct MediaTypeRulesTests {
    @Test(arguments: [
        "application/json, text/event-stream",
        "text/event-stream,application/json",
        "application/json;q=0.9, text/event-stream;q=0.5",
        "*/*",
        "application/*, text/*",
        "Application/JSON, Text/Event-Stream",
    ])
    func postAcceptsThatCoverJSONAndSSE(_ accept: String) {
        #expect(MediaTypeRules.acceptsPostAnswers(accept))
    }

    @Test(arguments: [
        nil, "", "text/html", "application/json", "text/event-stream", "application/json, text/event-stream;q=0",
    ])
    func postAcceptsThatMissOneAreRefused(_ accept: String?) {
        #expect(!MediaTypeRules.acceptsPostAnswers(accept))
    }

    @Test func getNeedsTheEventStream() {
        #expect(MediaTypeRules.acceptsStream("text/event-stream"))
        #expect(MediaTypeRules.acceptsStream("text/*"))
        #expect(!MediaTypeRules.acceptsStream("text/html"))
        #expect(!MediaTypeRules.acceptsStream(nil))
    }

    @Test func bodiesMustBeJSON() {
        #expect(MediaTypeRules.isJSON("application/json"))
        #expect(MediaTypeRules.isJSON("application/json; charset=utf-8"))
        #expect(MediaTypeRules.isJSON(" Application/JSON "))
        #expect(!MediaTypeRules.isJSON("text/plain"))
        #expect(!MediaTypeRules.isJSON("application/json-patch+json"))
        #expect(!MediaTypeRules.isJSON(nil))
    }
}
