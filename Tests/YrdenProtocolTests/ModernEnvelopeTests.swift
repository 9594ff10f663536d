import Testing

@testable import YrdenProtocol

/// The 2026-07-28 envelope as a stateless request carries it, and the header value form of that era.
@Suite struct ModernEnvelopeTests {
    static func request(_ meta: JSONObject) -> JSONRPCRequest {
        JSONRPCRequest(id: .int(1), method: "tools/list", params: ["_meta": .object(meta), "cursor": "c"])
    }

    static let complete: JSONObject = [
        ModernEnvelope.versionKey: "2026-07-28",
        ModernEnvelope.capabilitiesKey: ["sampling": [:]],
        ModernEnvelope.clientInfoKey: ["name": "c", "version": "1"],
        "progressToken": 5,
    ]

    @Test func aCompleteEnvelopeIsRead() throws {
        let envelope = try ModernEnvelope(Self.request(Self.complete), served: ProtocolVersion.served)
        #expect(envelope.protocolVersion == "2026-07-28")
        #expect(envelope.clientCapabilities["sampling"] != nil)
        #expect(envelope.clientInfo?["name"] == "c")
    }

    @Test(arguments: [ModernEnvelope.capabilitiesKey, ModernEnvelope.versionKey])
    func aMissingRequiredKeyIs32602(_ key: String) {
        var meta = Self.complete
        meta[key] = nil
        #expect(throws: JSONRPCError.self) { try ModernEnvelope(Self.request(meta), served: []) }
        do {
            _ = try ModernEnvelope(Self.request(meta), served: [])
        } catch {
            #expect(error.code == -32602)
        }
    }

    @Test func anUnservedVersionIs32022ListingWhatIsServed() {
        var meta = Self.complete
        meta[ModernEnvelope.versionKey] = "2099-01-01"
        do {
            _ = try ModernEnvelope(Self.request(meta), served: ProtocolVersion.served)
            Issue.record("accepted an unknown version")
        } catch {
            #expect(error.code == -32022)
            #expect(error.data?["requested"] == "2099-01-01")
            #expect(error.data?["supported"]?.arrayValue?.first == "2026-07-28")
            #expect(error.data?["supported"]?.arrayValue?.contains("2025-11-25") == true)
        }
    }

    @Test func strippingRemovesOnlyTheEnvelope() {
        let stripped = ModernEnvelope.stripped(Self.request(Self.complete).params)
        #expect(stripped?["_meta"] == ["progressToken": 5])
        #expect(stripped?["cursor"] == "c")
        let bare = ModernEnvelope.stripped(["_meta": [ModernEnvelope.versionKey: "2026-07-28"]])
        #expect(bare?["_meta"] == nil, "an emptied _meta goes")
    }

    @Test func headerValuesDecodeFromTheirBase64Form() {
        #expect(MCPHeaderValue.decode("demo__echo") == "demo__echo")
        #expect(MCPHeaderValue.decode("=?base64?QWRhIExvdmVsYWNl?=") == "Ada Lovelace")
        #expect(MCPHeaderValue.decode("=?base64?w4ltaWxl?=") == "Émile")
        #expect(MCPHeaderValue.decode("=?base64?not base64!?=") == nil)
        #expect(MCPHeaderValue.decode("=?base64?/w==?=") == nil, "not UTF-8")
    }

    @Test func stampingReplacesTheEnvelopeAndKeepsTheRest() {
        let params: JSONValue = [
            "name": "echo", "_meta": ["progressToken": 5, ModernEnvelope.versionKey: "2099-01-01"],
        ]
        let stamped = ModernEnvelope.stamped(
            params,
            version: "2026-07-28",
            capabilities: [:],
            clientInfo: ["name": "g"]
        )
        #expect(stamped["name"] == "echo")
        #expect(stamped["_meta"]?["progressToken"] == 5)
        #expect(stamped["_meta"]?[ModernEnvelope.versionKey] == "2026-07-28")
        #expect(stamped["_meta"]?[ModernEnvelope.capabilitiesKey] == [:])
        #expect(stamped["_meta"]?[ModernEnvelope.clientInfoKey] == ["name": "g"])
        let bare = ModernEnvelope.stamped(nil, version: "2026-07-28", capabilities: [:], clientInfo: .null)
        #expect(bare["_meta"]?[ModernEnvelope.versionKey] == "2026-07-28", "a request without params gets some")
    }

    @Test(arguments: [
        "demo__echo", "Ada Lovelace", "Émile", " padded", "trailing ", "=?base64?QQ==?=", "tab\there", "",
    ])
    func headerValuesEncodeSoTheyDecodeBack(_ text: String) {
        let encoded = MCPHeaderValue.encode(text)
        #expect(encoded.utf8.allSatisfy { (0x20...0x7E).contains($0) })
        #expect(MCPHeaderValue.decode(encoded) == text)
    }

    @Test func plainHeaderValuesStayPlain() {
        #expect(MCPHeaderValue.encode("demo__echo") == "demo__echo")
        #expect(MCPHeaderValue.encode("file:///a b.txt") == "file:///a b.txt")
        #expect(MCPHeaderValue.encode("Émile") == "=?base64?w4ltaWxl?=")
    }
}
