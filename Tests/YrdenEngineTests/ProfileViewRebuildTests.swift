import Testing
import YrdenConfig
import YrdenProtocol

@testable import YrdenEngine

/// A profile's view built from the view before it (only the servers whose tools changed matched again) is the
/// view a fresh build makes, and the one the rule it replaces made, through servers coming, going and changing
/// and through changes of the profile itself.
@Suite struct ProfileViewRebuildTests {
    private typealias Servers = [(id: String, tools: [String], resources: [String])]

    private static func catalog(_ servers: Servers) -> AggregatedCatalog {
        AggregatedCatalog(
            sources: servers.map { server in
                CatalogSource(
                    server: server.id,
                    prefix: server.id,
                    catalog: ServerCatalog(
                        tools: server.tools.map { ["name": .string($0), "description": .string("does \($0)")] },
                        prompts: [["name": .string("ask_\(server.id)")]],
                        resources: server.resources.map { ["uri": .string($0), "name": .string($0)] },
                        resourceTemplates: [["uriTemplate": .string("\(server.id)://{x}"), "name": "t"]]
                    )
                )
            },
            separator: "__"
        )
    }

    /// The tools of the view as the rule before made them: every tool of the aggregate matched against every
    /// pattern, in order, the first of two that share a shown name keeping it.
    private static func reference(
        _ spec: ProfileSpec,
        _ catalog: AggregatedCatalog
    ) -> (
        tools: [JSONValue], routes: [String: Route], conflicts: Int
    ) {
        var tools: [JSONValue] = []
        var routes: [String: Route] = [:]
        var conflicts = 0
        for tool in catalog.tools {
            guard case .object(var object) = tool, let name = object["name"]?.stringValue,
                let route = catalog.toolRoutes[name], spec.includes(server: route.server), spec.tools.permits(name)
            else { continue }
            let shown = spec.rename[name] ?? name
            guard routes[shown] == nil else {
                conflicts += 1
                continue
            }
            object["name"] = .string(shown)
            if let description = spec.descriptions[shown] { object["description"] = .string(description) }
            routes[shown] = route
            tools.append(.object(object))
        }
        return (tools, routes, conflicts)
    }

    private static func expectSame(_ built: ProfileView, _ catalog: AggregatedCatalog, _ step: String) {
        let fresh = ProfileView(spec: built.spec, catalog: catalog)
        #expect(built.visibleTools == fresh.visibleTools, "\(step): tools")
        #expect(built.toolRoutes == fresh.toolRoutes, "\(step): routes")
        #expect(built.toolNames == fresh.toolNames, "\(step): names")
        #expect(built.conflicts == fresh.conflicts, "\(step): conflicts")
        #expect(built.tools == fresh.tools, "\(step): tools/list")
        #expect(built.prompts == fresh.prompts && built.resources == fresh.resources, "\(step): prompts, resources")
        #expect(built.resourceTemplates == fresh.resourceTemplates, "\(step): templates")
        #expect(built.changedKinds(since: fresh).isEmpty, "\(step): fingerprints")
        for name in fresh.toolRoutes.keys { #expect(built.definition(of: name) == fresh.definition(of: name)) }
        let reference = reference(built.spec, catalog)
        #expect(built.visibleTools == reference.tools, "\(step): tools as the rule before made them")
        #expect(built.toolRoutes == reference.routes && built.conflicts.count == reference.conflicts, "\(step)")
    }

    private let base: Servers = [
        ("a", ["read_file", "write_file", "list"], ["file:///a/1"]),
        ("b", ["read_mail", "send_mail", "delete_mail"], ["mail://b/1"]),
        ("c", ["search", "read_page"], []),
    ]

    private let spec = ProfileSpec(
        name: "p",
        tools: ToolFilter(allow: ["*read*", "b__send_mail", "c__*"], deny: ["*delete*"]),
        rename: ["a__read_file": "read", "c__read_page": "page", "d__read_page": "page"],
        descriptions: ["read": "Reads a file."]
    )

    @Test func serversComingGoingAndChangingGiveTheViewAFreshBuildGives() {
        var servers = base
        var view = ProfileView(spec: spec, catalog: Self.catalog(servers))
        #expect(view.partsMatched == 3)
        let steps: [(String, (inout Servers) -> Void, matched: Int)] = [
            ("nothing changed", { _ in }, 0),
            ("b's tools changed", { $0[1].tools.append("read_draft") }, 1),
            ("b's resources changed", { $0[1].resources.append("mail://b/2") }, 0),
            ("d came, its page clashing with c's", { $0.insert(("d", ["read_page", "read_file"], []), at: 1) }, 1),
            ("c left, the clash with it", { $0.remove(at: 3) }, 0),
            ("d's tools changed", { $0[1].tools = ["read_file"] }, 1),
            ("a left", { $0.remove(at: 0) }, 0),
            ("a came back", { $0.insert(("a", ["read_file"], []), at: 0) }, 1),
        ]
        for (step, change, matched) in steps {
            change(&servers)
            let catalog = Self.catalog(servers)
            view = ProfileView(spec: spec, catalog: catalog, previous: view)
            Self.expectSame(view, catalog, step)
            #expect(view.partsMatched == matched, "\(step): only the servers whose tools changed are matched again")
        }
    }

    @Test func aChangeOfTheProfileRebuildsItsView() {
        let catalog = Self.catalog(base)
        let before = ProfileView(spec: spec, catalog: catalog)
        let changes: [(String, (inout ProfileSpec) -> Void)] = [
            ("patterns", { $0.tools = ToolFilter(allow: ["*mail*"]) }),
            ("renames", { $0.rename = ["b__read_mail": "a__read_file"] }),
            ("a rename onto another tool's name", { $0.rename = ["c__search": "b__read_mail"] }),
            ("descriptions", { $0.descriptions = ["c__search": "Searches."] }),
            ("servers", { $0.servers = ["c", "a"] }),
            ("search mode", { $0.toolMode = .search }),
        ]
        for (step, change) in changes {
            var changed = spec
            change(&changed)
            let view = ProfileView(spec: changed, catalog: catalog, previous: before)
            Self.expectSame(view, catalog, step)
            #expect(!view.changedKinds(since: before).isEmpty, "\(step): the profile's clients hear of it")
        }
    }

    @Test func aChangeOutsideTheProfileIsNotAChangeOfIt() {
        var narrow = spec
        narrow.servers = ["a"]
        let view = ProfileView(spec: narrow, catalog: Self.catalog(base))
        var servers = base
        servers[1].tools.append("read_draft")
        servers[2].resources.append("web://c/1")
        servers.append(("d", ["read"], ["file:///d/1"]))
        let after = ProfileView(spec: narrow, catalog: Self.catalog(servers), previous: view)
        #expect(after.changedKinds(since: view).isEmpty)
        #expect(after.partsMatched == 0)
        servers[0].resources.append("file:///a/2")
        #expect(
            ProfileView(spec: narrow, catalog: Self.catalog(servers), previous: after).changedKinds(since: after)
                == [.resources]
        )
    }
}
