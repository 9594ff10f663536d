import Testing
import YrdenTelemetry

@Suite struct MCPSpanAttributesTests {
    private let context = SpanContext(
        traceID: TraceID(high: 0x0af7_6519_16cd_43dd, low: 0x8448_eb21_1c80_319c),
        spanID: SpanID(0xb7ad_6b71_6920_3331),
        sampled: true,
        traceState: "congo=t61rcWkgMzE"
    )

    private func record(mcp: MCPSpanAttributes = MCPSpanAttributes(), attributes: [SpanAttribute] = []) -> SpanRecord {
        SpanRecord(
            context: context,
            parentSpanID: SpanID(0x00f0_67aa_0ba9_02b7),
            name: "tools/call",
            nameTarget: "echo",
            kind: .server,
            startNanos: 1_700_000_000_000_000_000,
            endNanos: 1_700_000_000_000_250_000,
            mcp: mcp,
            attributes: attributes
        )
    }

    /// The typed fields and a name in two parts are what the exporter sends for the same attributes listed
    /// by key and the joined name: the collector cannot tell the fast path from the plain one.
    @Test func typedFieldsEncodeAsTheSameAttributesListed() {
        var typed = MCPSpanAttributes()
        typed.method = "tools/call"
        typed.sessionID = "a-session"
        typed.protocolVersion = "2025-06-18"
        typed.requestNumber = 42
        typed.toolName = "echo"
        typed.executesTool = true
        typed.networkTransport = "tcp"
        typed.server = "up0"
        typed.outcome = "error"
        typed.errorType = "-32603"
        var plain = record(attributes: [
            SpanAttribute("mcp.method.name", "tools/call"),
            SpanAttribute("mcp.session.id", "a-session"),
            SpanAttribute("mcp.protocol.version", "2025-06-18"),
            SpanAttribute("jsonrpc.request.id", "42"),
            SpanAttribute("gen_ai.tool.name", "echo"),
            SpanAttribute("gen_ai.operation.name", "execute_tool"),
            SpanAttribute("network.transport", "tcp"),
            SpanAttribute("yrden.server", "up0"),
            SpanAttribute("yrden.outcome", "error"),
            SpanAttribute("error.type", "-32603"),
        ])
        plain.name = "tools/call echo"
        plain.nameTarget = nil
        let fast = OTLPTraceEncoding.exportRequest([record(mcp: typed)], serviceName: "yrden")
        let listed = OTLPTraceEncoding.exportRequest([plain], serviceName: "yrden")
        #expect(fast == listed)
    }

    /// A span's `traceparent` is written in place; it reads back as the same context.
    @Test func aTraceparentIsWrittenAsW3CHasIt() throws {
        #expect(context.traceparent == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        let unsampled = SpanContext(traceID: TraceID(high: 1, low: 0xff), spanID: SpanID(0xa), sampled: false)
        #expect(unsampled.traceparent == "00-000000000000000100000000000000ff-000000000000000a-00")
        let parsed = try #require(SpanContext(traceparent: unsampled.traceparent))
        #expect(parsed == unsampled)
    }

    /// A renamed span keeps no target; a typed field is set only while recording.
    @Test func renamingDropsTheTargetAndAnUnsampledSpanKeepsNothing() {
        let tracer = Tracer(serviceName: "yrden", sampleRatio: 1, queue: SpanQueue())
        var span = tracer.start("tools/call", target: "echo", kind: .server, parent: nil)
        #expect(span.record?.nameTarget == "echo")
        span.rename("other")
        #expect(span.record?.name == "other" && span.record?.nameTarget == nil)
        let quiet = SpanContext(traceID: TraceID(high: 1, low: 2), spanID: SpanID(3), sampled: false)
        var unsampled = tracer.start("route", kind: .internal, parent: quiet)
        unsampled.setMCP { $0.server = "up0" }
        #expect(unsampled.record == nil)
    }
}
