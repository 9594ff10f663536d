import Testing
import YrdenConfig
import YrdenProtocol

@testable import YrdenEngine

/// A server's prepared part of the aggregate is kept while its lists, prefix and filter stay the same, and
/// prepared again when any of them changes; the aggregate built from it is the one built from scratch.
@Suite struct CatalogContributionTests {
    private func spec(_ id: String, prefix: String? = nil, deny: [String] = []) -> ServerSpec {
        ServerSpec(
            id: id,
            transport: .stdio(command: "x", args: [], env: [:], cwd: nil),
            prefix: prefix,
            toolFilter: ToolFilter(deny: deny)
        )
    }

    private func catalog(_ tools: [String]) -> ServerCatalog {
        ServerCatalog(tools: tools.map { ["name": .string($0), "inputSchema": ["type": "object"]] })
    }

    private func exposedTools(_ part: CatalogContribution) -> [String] { part.tools.map(\.exposed) }

    @Test func aPartIsKeptUntilItsListsPrefixOrFilterChange() {
        let kept = CatalogContributions()
        let first = kept.contribution(of: spec("a"), catalog: catalog(["x", "y"]), separator: "__")
        #expect(exposedTools(first) == ["a__x", "a__y"])
        // A catalog equal to the first one, built apart, finds the kept part.
        let again = kept.contribution(of: spec("a"), catalog: catalog(["x", "y"]), separator: "__")
        #expect(exposedTools(again) == ["a__x", "a__y"])
        let listChanged = kept.contribution(of: spec("a"), catalog: catalog(["x", "z"]), separator: "__")
        #expect(exposedTools(listChanged) == ["a__x", "a__z"])
        let prefixChanged = kept.contribution(
            of: spec("a", prefix: "b"),
            catalog: catalog(["x", "z"]),
            separator: "__"
        )
        #expect(exposedTools(prefixChanged) == ["b__x", "b__z"])
        let filtered = kept.contribution(
            of: spec("a", prefix: "b", deny: ["x"]),
            catalog: catalog(["x", "z"]),
            separator: "__"
        )
        #expect(exposedTools(filtered) == ["b__z"])
        #expect(filtered.tools.first?.name == "z")
        #expect(filtered.tools.first?.value["name"] == "b__z")
    }

    @Test func theAggregateFromPreparedPartsIsTheOneBuiltFromScratch() {
        let kept = CatalogContributions()
        let specs = [spec("a"), spec("b", prefix: "a")]
        let catalogs = [catalog(["x", "y"]), catalog(["y", "w"])]
        let fresh = AggregatedCatalog(
            sources: zip(specs, catalogs).map { CatalogSource(server: $0.id, prefix: $0.prefix, catalog: $1) },
            separator: "__"
        )
        let prepared = AggregatedCatalog(
            sources: zip(specs, catalogs).map {
                CatalogSource(
                    server: $0.id,
                    prefix: $0.prefix,
                    catalog: $1,
                    contribution: kept.contribution(of: $0, catalog: $1, separator: "__")
                )
            },
            separator: "__"
        )
        #expect(prepared.tools == fresh.tools)
        #expect(prepared.toolRoutes == fresh.toolRoutes)
        #expect(prepared.conflicts == fresh.conflicts)
        #expect(prepared.conflicts.count == 1, "b's a__y clashes with a's and a keeps it")
        #expect(!prepared.listDiffers(.tools, from: fresh))
    }

    /// When only pinning's marks move, the kept part is re-marked tool by tool, and equals the part prepared
    /// from scratch with the new marks at every step (withheld, flagged, approved, changed again).
    @Test func aPartWhoseMarksMoveEqualsOnePreparedAfresh() {
        let kept = CatalogContributions()
        let spec = spec("a", deny: ["t3"])
        let catalog = catalog((0..<8).map { "t\($0)" })
        let steps = [
            ToolPinMarks(),
            ToolPinMarks(withheld: ["t1": ["description"], "t3": ["title"], "t5": ["inputSchema"]]),
            ToolPinMarks(withheld: ["t1": ["description"], "t5": ["inputSchema"]]),
            ToolPinMarks(withheld: ["t5": ["inputSchema", "title"]], flagged: ["t0": ["description"]]),
            ToolPinMarks(flagged: ["t0": ["description"], "t7": ["title"]]),
            ToolPinMarks(),
        ]
        for marks in steps {
            let part = kept.contribution(of: spec, catalog: catalog, pinMarks: marks, separator: "__")
            let fresh = CatalogContribution(
                catalog: catalog,
                prefix: spec.prefix,
                separator: "__",
                pinMarks: marks,
                permitsTool: { spec.toolFilter.permits($0) }
            )
            #expect(part.tools.map(\.exposed) == fresh.tools.map(\.exposed))
            #expect(part.tools.map(\.value) == fresh.tools.map(\.value))
            #expect(part.tools.map(\.digest) == fresh.tools.map(\.digest))
            #expect(
                part.withheld.map { "\($0.exposed) \($0.name) \($0.changedFields)" }
                    == fresh.withheld.map { "\($0.exposed) \($0.name) \($0.changedFields)" }
            )
        }
    }
}
