import Testing

import YrdenProtocol

@Suite struct SSEParserTests {
    private func parse(_ chunks: [String], maxEventBytes: Int = 1 << 20) -> (events: [SSEEvent], parser: SSEParser) {
        var parser = SSEParser(maxEventBytes: maxEventBytes)
        var events: [SSEEvent] = []
        for chunk in chunks { events += parser.feed(Array(chunk.utf8)) }
        return (events, parser)
    }

    private func event(_ data: String, event: String? = nil, id: String? = nil) -> SSEEvent {
        SSEEvent(event: event, data: Array(data.utf8), id: id)
    }

    @Test func eventTypeDataAndIDAreParsed() {
        let (events, parser) = parse(["event: message\nid: 7\ndata: {\"a\":1}\n\n"])
        #expect(events == [event("{\"a\":1}", event: "message", id: "7")])
        #expect(parser.lastEventID == "7")
    }

    @Test func multipleDataLinesAreJoinedWithNewlines() {
        #expect(parse(["data: one\ndata:two\ndata:  three\n\n"]).events == [event("one\ntwo\n three")])
    }

    @Test func commentsAndUnknownFieldsAreIgnored() {
        #expect(parse([": keep-alive\n\n", "foo: bar\ndata: x\n: note\n\n"]).events == [event("x")])
    }

    @Test func crlfAndBareCRLineEndingsWork() {
        #expect(parse(["data: a\r\n\r\ndata: b\r\rdata: c\n\n"]).events == [event("a"), event("b"), event("c")])
    }

    @Test func crlfSplitAcrossChunksIsOneLineEnding() {
        // A CR at the end of one chunk and the LF at the start of the next must not make an empty line.
        #expect(parse(["data: a\r", "\ndata: b\r", "\n\r", "\n"]).events == [event("a\nb")])
    }

    @Test func eventsSplitAcrossChunksAreReassembled() {
        let chunks = ["ev", "ent: message\nda", "ta: {\"jsonrpc\"", ":\"2.0\"}", "\n", "\n", "data: next\n"]
        let (events, _) = parse(chunks)
        #expect(events == [event("{\"jsonrpc\":\"2.0\"}", event: "message")])
    }

    @Test func anEventIsDispatchedOnlyAtItsBlankLine() {
        var parser = SSEParser()
        #expect(parser.feed(Array("data: pending\n".utf8)).isEmpty)
        #expect(parser.feed(Array("\n".utf8)) == [event("pending")])
    }

    @Test func eventsWithEmptyDataAreNotDispatchedButTheirIDCounts() {
        // The 2025-11-25 priming event: an id and empty data.
        let (events, parser) = parse(["id: prime-1\ndata:\n\n", "event: message\n\n", "data: real\n\n"])
        #expect(events == [event("real", id: "prime-1")])
        #expect(parser.lastEventID == "prime-1")
    }

    @Test func retryTakesOnlyDigits() {
        #expect(parse(["retry: 2500\n\n"]).parser.retryMilliseconds == 2500)
        #expect(parse(["retry: 2500\nretry: soon\nretry: 1.5\n\n"]).parser.retryMilliseconds == 2500)
    }

    @Test func aFieldWithoutColonHasAnEmptyValue() {
        #expect(parse(["data\ndata: x\n\n"]).events == [event("\nx")])
    }

    @Test func aLeadingByteOrderMarkIsSkipped() {
        #expect(parse(["\u{FEFF}data: x\n\n"]).events == [event("x")])
    }

    @Test func oversizedEventsAreDroppedWhole() {
        let long = String(repeating: "z", count: 40)
        let (events, parser) = parse(["data: \(long)\n", "data: more\n\n", "data: ok\n\n"], maxEventBytes: 32)
        #expect(events == [event("ok")])
        #expect(parser.droppedEvents == 1)
    }

    @Test func aLineThatNeverEndsIsNotBufferedPastTheBound() {
        // What the CLI's own parser lacked: a stream of one endless line grew its buffer without limit.
        var parser = SSEParser(maxEventBytes: 32)
        for _ in 0..<1000 { #expect(parser.feed(Array("data: zzzzzzzzzz".utf8)).isEmpty) }
        #expect(parser.feed(Array("\n\ndata: ok\n\n".utf8)) == [event("ok")])
        #expect(parser.droppedEvents == 1)
    }
}
