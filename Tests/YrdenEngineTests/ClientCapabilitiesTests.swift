import Testing
import YrdenProtocol

@testable import YrdenEngine

/// A session lives until DELETE or its idle timeout: it keeps only the capability flags the gateway reads,
/// however large the `capabilities` object a client sent.
@Suite struct ClientCapabilitiesTests {
    @Test func aSessionKeepsOnlyTheCapabilityFlagsTheGatewayReads() throws {
        let blob = JSONValue.string(String(repeating: "z", count: 1 << 20))
        var junk = JSONObject()
        for index in 0..<100 { junk["junk\(index)"] = ["payload": blob] }
        junk["url"] = ["payload": blob]
        let declared: JSONObject = [
            "elicitation": .object(junk),
            "sampling": ["tools": ["deep": blob], "context": [:]],
            "roots": ["listChanged": true, "extra": blob],
            "experimental": ["big": blob],
            "extensions": ["x": blob],
        ]
        let store = SessionStore()
        let session = try store.create(protocolVersion: "2025-06-18", clientInfo: nil, capabilities: declared)
        let kept = session.capabilities
        #expect(Set(kept.map(\.key)) == ["elicitation", "sampling", "roots"])
        #expect(kept["sampling"] == ["tools": [:], "context": [:]])
        #expect(kept["roots"] == ["listChanged": true])
        // URL mode is kept however much comes before it; other flags are bounded in number and emptied.
        #expect(kept["elicitation"]?["url"] == [:])
        #expect((kept["elicitation"]?.objectValue?.count ?? 0) <= ClientCapabilities.maxFlags + 2)
        #expect(JSONValue.object(kept).serialized().count < 4096)
        // What the client declared still decides what it is asked.
        #expect(session.acceptsRelayedRequests)
        #expect(ClientCapabilities.kept(from: ["elicitation": [:]]) == ["elicitation": [:]])
        #expect(ClientCapabilities.kept(from: ["tools": [:]]).isEmpty)
    }
}
