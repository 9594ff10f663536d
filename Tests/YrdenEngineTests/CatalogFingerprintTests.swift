import Testing
import YrdenProtocol

@testable import YrdenEngine

/// Whether a merged list changed is decided by fingerprints computed from each item's digest, so a refresh
/// of a server with megabytes of schemas costs the gateway's lock nothing; they must still see every change
/// a client would see, and no change where there is none.
@Suite struct CatalogFingerprintTests {
    /// A tool whose schema has `properties` entries; `variant` changes the description of the last one.
    private static func tool(_ name: String, properties: Int = 3, variant: String = "") -> JSONObject {
        let schema = JSONObject(
            (0..<properties).map { index in
                let description = index == properties - 1 ? "last\(variant)" : "p\(index)"
                return ("p\(index)", JSONValue.object(["type": "string", "description": .string(description)]))
            }
        )
        return ["name": .string(name), "inputSchema": ["type": "object", "properties": .object(schema)]]
    }

    private static func merged(
        _ tools: [JSONObject],
        prefix: String = "s",
        permits: @escaping @Sendable (String) -> Bool = { _ in true },
        resources: [String] = []
    ) -> AggregatedCatalog {
        let catalog = ServerCatalog(tools: tools, resources: resources.map { ["uri": .string($0)] })
        return AggregatedCatalog(
            sources: [CatalogSource(server: "s", prefix: prefix, permitsTool: permits, catalog: catalog)],
            separator: "__"
        )
    }

    @Test func equalListsBuiltApartDoNotDiffer() {
        let before = Self.merged([Self.tool("a", properties: 5000), Self.tool("b")], resources: ["x://1"])
        let after = Self.merged([Self.tool("a", properties: 5000), Self.tool("b")], resources: ["x://1"])
        for kind in ServerCatalog.Kind.allCases { #expect(!after.listDiffers(kind, from: before)) }
        #expect(!AggregatedCatalog.empty.listDiffers(.tools, from: Self.merged([])))
    }

    @Test func aChangeDeepInOneSchemaIsSeenAndOnlyInItsKind() {
        let before = Self.merged([Self.tool("a", properties: 5000)], resources: ["x://1"])
        let after = Self.merged([Self.tool("a", properties: 5000, variant: "!")], resources: ["x://1"])
        #expect(after.listDiffers(.tools, from: before))
        #expect(!after.listDiffers(.prompts, from: before))
        #expect(!after.listDiffers(.resources, from: before))
    }

    @Test func whatClientsSeeChangesWithTheNamesTheFilterAndTheOrder() {
        let base = Self.merged([Self.tool("a"), Self.tool("b")])
        #expect(Self.merged([Self.tool("a"), Self.tool("b")], prefix: "t").listDiffers(.tools, from: base))
        #expect(Self.merged([Self.tool("a"), Self.tool("b")], permits: { $0 == "a" }).listDiffers(.tools, from: base))
        #expect(Self.merged([Self.tool("b"), Self.tool("a")]).listDiffers(.tools, from: base))
        #expect(Self.merged([Self.tool("a")]).listDiffers(.tools, from: base))
        #expect(
            Self.merged([Self.tool("a"), Self.tool("b")], resources: ["x://1"]).listDiffers(.resources, from: base)
        )
    }

    @Test func aCatalogsDigestsFollowItsLists() {
        var catalog = ServerCatalog(tools: [Self.tool("a")])
        let first = catalog.digests(.tools)
        catalog.tools = [Self.tool("a", variant: "!")]
        #expect(catalog.digests(.tools).count == 1)
        #expect(catalog.digests(.tools) != first)
        catalog[.tools] = [Self.tool("a")]
        #expect(catalog.digests(.tools) == first)
    }
}
