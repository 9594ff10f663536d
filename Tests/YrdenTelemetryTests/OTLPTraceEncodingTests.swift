import Testing
import YrdenTelemetry

@Suite struct OTLPTraceEncodingTests {
    /// The same request built with the published `opentelemetry-proto` package (1.45.2) and serialized by
    /// Python's protobuf (`SerializeToString`, field-number order): the bytes must match exactly.
    static let expectedHex =
        "0ac1020a190a170a0c736572766963652e6e616d6512070a05797264656e12a3020a070a05797264656e1297020a100af7"
        + "651916cd43dd8448eb211c80319c1208b7ad6b71692033311a11636f6e676f3d7436317263576b674d7a45220800f067"
        + "aa0ba902b72a0f746f6f6c732f63616c6c206563686f30023900002a36fe9c97174190d02d36fe9c97174a1f0a0f6d63"
        + "702e6d6574686f642e6e616d65120c0a0a746f6f6c732f63616c6c4a180a126a736f6e7270632e726571756573742e69"
        + "64120218004a100a0a797264656e2e666c6167120210004a180a0b797264656e2e726174696f120921000000000000e0"
        + "3f4a1a0a0b797264656e2e636f756e74120b18fdffffffffffffffff016a210a104bf92f3577b34da6a3ce929d0e0e47"
        + "36120800f067aa0ba902b735010000007a0b120774696d656f75741802850101000000"

    @Test func encodesASpanAsTheReferenceImplementationDoes() throws {
        let context = try #require(
            SpanContext(
                traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                tracestate: "congo=t61rcWkgMzE"
            )
        )
        let link = try #require(SpanContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        let span = SpanRecord(
            context: context,
            parentSpanID: SpanID(hex: "00f067aa0ba902b7"),
            name: "tools/call echo",
            kind: .server,
            startNanos: 1_700_000_000_000_000_000,
            endNanos: 1_700_000_000_000_250_000,
            attributes: [
                SpanAttribute("mcp.method.name", "tools/call"),
                SpanAttribute("jsonrpc.request.id", .int(0)),
                SpanAttribute("yrden.flag", .bool(false)),
                SpanAttribute("yrden.ratio", .double(0.5)),
                SpanAttribute("yrden.count", .int(-3)),
            ],
            links: [link],
            status: .error("timeout")
        )
        let bytes = OTLPTraceEncoding.exportRequest([span], serviceName: "yrden")
        #expect(hex(bytes) == Self.expectedHex)
    }

    private func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}
