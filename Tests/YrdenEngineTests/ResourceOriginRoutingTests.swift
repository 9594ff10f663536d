import Testing
import YrdenProtocol

@testable import YrdenEngine

/// A URI no server lists or templates goes to the one server whose resources or templates share its origin,
/// found in a table built with the catalog: the same answer the rule before gave by taking the origin of every
/// resource on each read.
@Suite struct ResourceOriginRoutingTests {
    /// The rule before: the origins of every listed resource and template, taken on each read.
    private static func scanned(_ uri: String, _ catalog: AggregatedCatalog) -> String? {
        if let owner = catalog.resourceOwners[uri] { return owner }
        if let match = catalog.templateOwners.first(where: { $0.template.matches(uri) }) { return match.server }
        let origin = AggregatedCatalog.origin(of: uri)
        guard !origin.isEmpty else { return nil }
        let owners = Set(catalog.resourceOwners.filter { AggregatedCatalog.origin(of: $0.key) == origin }.values)
        let templateServers = Set(
            catalog.templateOwners.filter { AggregatedCatalog.origin(of: $0.template.pattern) == origin }.map(\.server)
        )
        let candidates = owners.union(templateServers)
        return candidates.count == 1 ? candidates.first : nil
    }

    private static func source(_ server: String, resources: [String], templates: [String] = []) -> CatalogSource {
        CatalogSource(
            server: server,
            prefix: server,
            catalog: ServerCatalog(
                resources: resources.map { ["uri": .string($0), "name": "r"] },
                resourceTemplates: templates.map { ["uriTemplate": .string($0), "name": "t"] }
            )
        )
    }

    private static let catalog = AggregatedCatalog(
        sources: [
            source(
                "files",
                resources: ["file:///etc/hosts", "file:///srv/a", "mem:note"],
                templates: ["git://{repo}"]
            ),
            source("app", resources: ["ui://app/page", "https://api.example/x?y#z", "urn:isbn:1"]),
            source(
                "both",
                resources: ["file:///etc/hosts", "https://api.example/other", "ui://APP/page", "mailto:a@b"],
                templates: ["db://rows/{id}", "{scheme}://anything", "ui://app/{page}x"]
            ),
            source("lone", resources: ["x:", "://odd", "s3://bucket", "s3://bucket/k", "h://u@host:1/p"]),
        ],
        separator: "__"
    )

    @Test func everyURIGoesWhereTheScanSentIt() {
        let uris = [
            "file:///etc/hosts", "file:///unlisted", "file://", "file:", "ui://app/other", "ui://app/pagex",
            "ui://APP/other", "ui://app", "ui://app?q", "ui://app#f", "https://api.example/new",
            "https://api.example", "https://API.example/x", "db://rows/1", "db://rows", "db://other/2",
            "mem:other", "mem:", "urn:isbn:2", "urn:", "mailto:c@d", "x:", "x:y", "://odd", "://", "", "no-scheme",
            "s3://bucket/other", "s3://bucket", "s3://bucketx", "h://u@host:1/q", "h://u@host:2/q",
            "{scheme}://anything", "{scheme}://else", "git://r", "git://", "é://ü/1", "file:///etc/hosts/",
        ]
        for uri in uris {
            #expect(Self.catalog.routeResource(uri) == Self.scanned(uri, Self.catalog), "\(uri.debugDescription)")
        }
        #expect(Self.catalog.routeResource("s3://bucket/other") == "lone", "one server has that origin")
        #expect(Self.catalog.routeResource("https://api.example/new") == nil, "two servers have that origin")
        #expect(Self.catalog.routeResource("mem:other") == "files", "an origin without an authority")
    }
}
