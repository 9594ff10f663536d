import Testing
import YrdenTelemetry

@Suite struct TraceContextTests {
    @Test func readsAW3CExampleAndWritesItBack() throws {
        let text = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let context = try #require(SpanContext(traceparent: text, tracestate: "congo=t61rcWkgMzE"))
        #expect(context.traceID.hex == "0af7651916cd43dd8448eb211c80319c")
        #expect(context.spanID.hex == "b7ad6b7169203331")
        #expect(context.sampled)
        #expect(context.traceState == "congo=t61rcWkgMzE")
        #expect(context.traceparent == text)
    }

    @Test func anUnsampledFlagIsKept() throws {
        let context = try #require(SpanContext(traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"))
        #expect(!context.sampled)
        #expect(context.traceparent.hasSuffix("-00"))
        #expect(context.traceState == nil)
    }

    @Test func aLaterVersionIsReadByItsFirstFourFields() throws {
        let context = try #require(
            SpanContext(traceparent: "cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-the-future-holds")
        )
        #expect(context.traceparent == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
    }

    @Test(
        "malformed traceparents are ignored",
        arguments: [
            "",
            "garbage",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",  // no flags
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",  // version 00 has four fields
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",  // all-zero trace id
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",  // all-zero span id
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",  // uppercase
            "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01",  // 31 digits
            "00-0af7651916cd43dd8448eb211c80319cc-b7ad6b7169203331-01",  // 33 digits
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333g-01",  // not hex
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  // the forbidden version
            "0-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  // one-digit version
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1",  // one-digit flags
            "00_0af7651916cd43dd8448eb211c80319c_b7ad6b7169203331_01",
        ]
    )
    func malformed(_ text: String) {
        #expect(SpanContext(traceparent: text) == nil)
    }

    @Test func anOversizedTraceStateIsDroppedNotCut() throws {
        let long = String(repeating: "a", count: SpanContext.maxTraceStateLength + 1)
        let context = try #require(
            SpanContext(traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: long)
        )
        #expect(context.traceState == nil)
    }

    @Test func newIDsAreValidAndDiffer() {
        let first = TraceID.random()
        let second = TraceID.random()
        #expect(first.isValid && second.isValid)
        #expect(first != second)
        #expect(first.hex.utf8.count == 32)
        #expect(SpanID.random().hex.utf8.count == 16)
    }
}

@Suite struct TraceSamplerTests {
    let parent = SpanContext(traceID: TraceID(high: 1, low: 2), spanID: SpanID(3), sampled: true)
    let unsampledParent = SpanContext(traceID: TraceID(high: 1, low: 2), spanID: SpanID(3), sampled: false)

    @Test func aParentsFlagIsFollowedWhateverTheRatio() {
        #expect(TraceSampler(ratio: 0).isSampled(parent.traceID, parent: parent))
        #expect(!TraceSampler(ratio: 1).isSampled(unsampledParent.traceID, parent: unsampledParent))
    }

    @Test func aNewTraceIsSampledByTheLowBitsOfItsID() {
        let sampler = TraceSampler(ratio: 0.5)
        #expect(sampler.isSampled(TraceID(high: 9, low: 0x3FFF_FFFF_FFFF_FFFF), parent: nil))
        #expect(!sampler.isSampled(TraceID(high: 9, low: 0x4000_0000_0000_0000), parent: nil))
        // The top bit is not read, so the same trace is kept at the same ratio whatever it holds.
        #expect(sampler.isSampled(TraceID(high: 9, low: 0xBFFF_FFFF_FFFF_FFFF), parent: nil))
    }

    @Test func ratiosZeroAndOneAreNeverAndAlways() {
        let ids = (0..<200).map { _ in TraceID.random() }
        #expect(ids.allSatisfy { TraceSampler(ratio: 1).isSampled($0, parent: nil) })
        #expect(ids.allSatisfy { !TraceSampler(ratio: 0).isSampled($0, parent: nil) })
    }

    @Test func aRatioOutOfRangeIsClamped() {
        #expect(TraceSampler(ratio: 7).ratio == 1)
        #expect(TraceSampler(ratio: -1).ratio == 0)
        #expect(TraceSampler(ratio: .nan).ratio == 0)
    }
}
