import Testing

@testable import YrdenHTTPServer

/// The bridge between libmicrohttpd's callbacks and Swift tasks, driven event by event without a socket.
@Suite struct ExchangeStateTests {
    private func receive(_ state: inout ExchangeState, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { state.receive($0) }
    }

    private func read(_ state: inout ExchangeState, capacity: Int = 64) -> (ExchangeState.ReadAction, [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let action = buffer.withUnsafeMutableBytes { state.read(into: $0) }
        if case .bytes(let count, _) = action { return (action, Array(buffer[..<count])) }
        return (action, [])
    }

    /// An exchange whose streamed answer has been queued with libmicrohttpd.
    private func streaming() -> ExchangeState {
        var state = ExchangeState(maxBodyBytes: 100)
        _ = state.finalCall()
        _ = state.deliver(HTTPResponse(status: 200, body: .stream { _ in }))
        _ = state.finalCall()
        return state
    }

    @Test func bodyPiecesAccumulateAndAreDispatchedWithASuspension() {
        var state = ExchangeState(maxBodyBytes: 10)
        #expect(step { state.begin(declaredLength: 6) } == nil)
        #expect(step { receive(&state, [1, 2, 3]) })
        #expect(step { receive(&state, [4, 5, 6]) })
        guard case .dispatch(let body) = state.finalCall() else {
            Issue.record("expected a dispatch")
            return
        }
        #expect(body == [1, 2, 3, 4, 5, 6])
        #expect(state.suspended)
    }

    @Test func aDeclaredLengthOverTheLimitIsReadAwayThenAnswered413() {
        var state = ExchangeState(maxBodyBytes: 10)
        #expect(state.begin(declaredLength: 11)?.status == nil)
        #expect(receive(&state, [UInt8](repeating: 1, count: 11)))
        #expect(state.body.isEmpty)
        guard case .queue(let response) = state.finalCall() else {
            Issue.record("expected a queued 413")
            return
        }
        #expect(response.status == 413)
        #expect(response.headers["connection"] == "close")
    }

    @Test func aDeclaredLengthFarOverTheLimitIsRefusedUpFront() {
        var state = ExchangeState(maxBodyBytes: 10)
        let refusal = state.begin(declaredLength: 10 << 20)
        #expect(refusal?.status == 413)
        #expect(refusal?.headers["connection"] == "close")
    }

    @Test func aBodyGrowingPastTheLimitIsDiscardedAndAnswered413() {
        var state = ExchangeState(maxBodyBytes: 10)
        #expect(step { state.begin(declaredLength: nil) } == nil)
        #expect(step { receive(&state, [UInt8](repeating: 1, count: 8)) })
        #expect(step { receive(&state, [UInt8](repeating: 1, count: 8)) })
        #expect(state.body.isEmpty)
        guard case .queue(let response) = state.finalCall() else {
            Issue.record("expected a queued 413")
            return
        }
        #expect(response.status == 413)
        #expect(!state.suspended)
    }

    @Test func aClientThatKeepsSendingAfterRefusalIsCutOff() {
        var state = ExchangeState(maxBodyBytes: 10)
        var accepted = true
        for _ in 0..<1000 where accepted {
            accepted = receive(&state, [UInt8](repeating: 0, count: 4096))
        }
        #expect(!accepted)
    }

    /// The largest limit a configuration can hold: the body-size checks must not overflow (they trapped, killing
    /// the process on the first POST).
    @Test func aLimitOfIntMaxAcceptsBodiesWithoutOverflow() {
        var state = ExchangeState(maxBodyBytes: .max)
        #expect(state.begin(declaredLength: .max) == nil)
        #expect(receive(&state, [1, 2, 3]))
        guard case .dispatch(let body) = state.finalCall() else {
            Issue.record("expected a dispatch")
            return
        }
        #expect(body == [1, 2, 3])
    }

    @Test func aLimitNearIntMaxStillRefusesADeclaredLengthPastIt() {
        var state = ExchangeState(maxBodyBytes: .max - 1)
        #expect(state.begin(declaredLength: .max)?.status == nil)
        #expect(receive(&state, [1, 2]))
        #expect(state.body.isEmpty)
        guard case .queue(let response) = state.finalCall() else {
            Issue.record("expected a queued 413")
            return
        }
        #expect(response.status == 413)
    }

    @Test func saturatingAdditionStopsAtIntMax() {
        #expect(Int.max.addingSaturated(1) == .max)
        #expect((Int.max / 2 + 1).addingSaturated(Int.max / 2 + 1) == .max)
        #expect(40.addingSaturated(2) == 42)
    }

    @Test func aDeliveredAnswerResumesOnceAndIsQueuedOnTheNextCall() {
        var state = ExchangeState(maxBodyBytes: 10)
        _ = state.finalCall()
        let first = state.deliver(.text(201, "made"))
        #expect(first.accepted && first.resume)
        #expect(!state.suspended)
        let second = state.deliver(.text(500, "late"))
        #expect(!second.accepted && !second.resume)
        guard case .queue(let response) = state.finalCall() else {
            Issue.record("expected the delivered answer")
            return
        }
        #expect(response.status == 201)
        guard case .close = state.finalCall() else {
            Issue.record("a call after queueing must not queue again")
            return
        }
    }

    @Test func abortAnswers503AndDropsTheLateAnswer() {
        var state = ExchangeState(maxBodyBytes: 10)
        _ = state.finalCall()
        #expect(step { state.abort() })
        #expect(!step { state.deliver(.text(200, "too late")) }.accepted)
        guard case .queue(let response) = state.finalCall() else {
            Issue.record("expected a 503")
            return
        }
        #expect(response.status == 503)
        #expect(!step { state.abort() })
    }

    @Test func refusalAnswers503() {
        var state = ExchangeState(maxBodyBytes: 10)
        _ = state.finalCall()
        #expect(step { state.refuse() })
        guard case .queue(let response) = state.finalCall() else {
            Issue.record("expected a 503")
            return
        }
        #expect(response.status == 503)
    }

    @Test func endStreamLeavesAPendingRequestAlone() {
        var state = ExchangeState(maxBodyBytes: 10)
        _ = state.finalCall()
        #expect(!step { state.endStream() })
        #expect(state.suspended)
        #expect(!state.writesClosed)
    }

    @Test func aStreamSuspendsWhenEmptyAndResumesOnWrite() {
        var state = streaming()
        #expect(step { read(&state) }.0 == .suspend)
        #expect(state.suspended)
        #expect(step { state.write(Array("hello".utf8)) } == .queued(resume: true))
        #expect(!state.suspended)
        #expect(step { state.write(Array(" world".utf8)) } == .queued(resume: false))
        let (action, bytes) = read(&state, capacity: 8)
        #expect(action == .bytes(8, wakeWriters: false))
        #expect(bytes == Array("hello wo".utf8))
        #expect(step { read(&state) }.1 == Array("rld".utf8))
        #expect(step { read(&state) }.0 == .suspend)
    }

    @Test func writesBeforeTheResponseIsQueuedAreKept() {
        var state = ExchangeState(maxBodyBytes: 10)
        _ = state.finalCall()
        _ = state.deliver(HTTPResponse(status: 200, body: .stream { _ in }))
        #expect(step { state.write([1, 2]) } == .queued(resume: false))
        _ = state.finalCall()
        #expect(step { read(&state) }.1 == [1, 2])
    }

    @Test func endingAStreamDrainsQueuedBytesThenEnds() {
        var state = streaming()
        _ = read(&state)
        #expect(step { state.write([1, 2, 3]) } == .queued(resume: true))
        #expect(!step { state.endStream() })
        #expect(step { state.write([4]) } == .closed)
        #expect(step { read(&state) }.1 == [1, 2, 3])
        #expect(step { read(&state) }.0 == .endOfStream)
    }

    @Test func aStreamTheServerStopsEndsWithItsClosingWords() {
        var state = streaming()
        _ = read(&state)
        #expect(step { state.write([1]) } == .queued(resume: true))
        state.setClosingWords([8])
        state.setClosingWords([9, 9])
        #expect(!step { state.endStream(serverStopping: true) })
        #expect(step { read(&state) }.1 == [1, 9, 9], "the last words set, after what was queued")
        #expect(step { read(&state) }.0 == .endOfStream)
    }

    @Test func aStreamItsWriterEndsSaysNoClosingWords() {
        var state = streaming()
        _ = read(&state)
        state.setClosingWords([9])
        #expect(step { state.write([1]) } == .queued(resume: true))
        _ = state.endStream()
        _ = state.endStream(serverStopping: true)
        #expect(step { read(&state) }.1 == [1])
        #expect(step { read(&state) }.0 == .endOfStream)
    }

    @Test func endingASuspendedStreamResumesIt() {
        var state = streaming()
        #expect(step { read(&state) }.0 == .suspend)
        #expect(step { state.endStream() })
        #expect(step { read(&state) }.0 == .endOfStream)
    }

    @Test func completionClosesWritesAndStopsReads() {
        var state = streaming()
        #expect(step { state.write([1]) } == .queued(resume: false))
        state.complete()
        #expect(state.writesClosed)
        #expect(step { state.write([2]) } == .closed)
        #expect(step { read(&state) }.0 == .error)
        #expect(!step { state.abort() })
    }

    @Test func writersWaitAboveTheHighWaterMarkUntilTheReaderDrains() {
        var state = streaming()
        let block = [UInt8](repeating: 9, count: StreamBuffer.highWater)
        #expect(step { state.write(block) } == .queued(resume: false))
        #expect(step { state.write([1]) } == .mustWait)
        #expect(step { state.mustWaitForRoom() })
        var woke = false
        while !woke {
            guard case .bytes(_, let wake) = read(&state, capacity: 64 << 10).0 else {
                Issue.record("expected bytes")
                return
            }
            woke = wake
        }
        #expect(state.stream.pendingCount <= StreamBuffer.lowWater)
        #expect(!step { state.mustWaitForRoom() })
        #expect(step { state.write([1]) } == .queued(resume: false))
    }

    /// 1.2 MB through the buffer, a debug build's quarter second of CPU: on a thread of its own, not one of
    /// the pool every test's next step waits for.
    @Test func streamBufferKeepsOrderAcrossCompaction() async throws {
        let (received, expected) = try await onThread { () -> ([UInt8], [UInt8]) in
            var buffer = StreamBuffer()
            var expected: [UInt8] = []
            var received: [UInt8] = []
            var scratch = [UInt8](repeating: 0, count: 50_000)
            for round in 0..<40 {
                let piece = (0..<30_000).map { UInt8(truncatingIfNeeded: $0 &+ round) }
                buffer.append(piece)
                expected += piece
                let count = scratch.withUnsafeMutableBytes { buffer.take(into: $0) }
                received += scratch[..<count]
            }
            while !buffer.isEmpty {
                let count = scratch.withUnsafeMutableBytes { buffer.take(into: $0) }
                received += scratch[..<count]
            }
            return (received, expected)
        }
        #expect(received == expected)
    }
}

/// Evaluates a mutating step outside `#expect`, whose expansion cannot mutate what it inspects.
private func step<T>(_ body: () -> T) -> T { body() }

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndKeepsOrder() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        headers.add(name: "X-Multi", value: "a")
        headers.add(name: "x-multi", value: "b")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["X-MULTI"] == "a")
        #expect(headers.values(for: "x-Multi") == ["a", "b"])
        #expect(headers.map(\.name) == ["Content-Type", "X-Multi", "x-multi"])
        #expect(headers["missing"] == nil)
        headers.replaceOrAdd(name: "X-MULTI", value: "c")
        #expect(headers.values(for: "x-multi") == ["c"])
        let empty: HTTPHeaders = []
        #expect(empty.isEmpty)
    }

    @Test func namesOfDifferentLengthsDiffer() {
        #expect(!HTTPHeaders.sameName("Accept", "Accept-Encoding"))
        #expect(HTTPHeaders.sameName("ACCEPT", "accept"))
    }

    /// Names that agree in their first seven bytes, or in their length, are still told apart; short and long
    /// names are found in any case.
    @Test func lookupTellsApartNamesThatShareTheirStart() {
        let headers: HTTPHeaders = [
            ("Mcp-Method", "tools/call"), ("Mcp-Name", "echo"), ("MCP-Protocol-Version", "2025-11-25"),
            ("Accept", "application/json"), ("Origin", "http://a"), ("X", "1"), ("Content-Length", "2"),
        ]
        #expect(headers["mcp-method"] == "tools/call")
        #expect(headers["MCP-NAME"] == "echo")
        #expect(headers["mcp-protocol-version"] == "2025-11-25")
        #expect(headers["Mcp-Protocol-Versioo"] == nil)
        #expect(headers["Mcp-Methox"] == nil)
        #expect(headers["ACCEPT"] == "application/json")
        #expect(headers["origin"] == "http://a")
        #expect(headers["Origim"] == nil)
        #expect(headers["x"] == "1")
        #expect(headers["content-LENGTH"] == "2")
        #expect(headers["Content-Lengthy"] == nil)
        #expect(headers[""] == nil)
    }
}
