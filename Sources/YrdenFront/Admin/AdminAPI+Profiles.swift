import Logging
import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `/profiles` and `/profiles/{name}`: the views of the gateway hosts can be given (`/mcp/{name}`), written back
/// to the config file like servers; `/profiles/{name}/tools`: what the profile's clients see, with where each
/// tool goes.
extension AdminAPI {
    func listProfiles() async -> HTTPResponse {
        let profiles = await store.redactedProfiles().map { view(of: $0.name, entry: $0.entry) }
        return FrontResponses.json(200, ["profiles": .array(profiles)])
    }

    func getProfile(_ name: String) async throws(AdminProblem) -> HTTPResponse {
        guard let entry = await store.redactedProfile(name) else { throw Self.unknownProfile(name) }
        return FrontResponses.json(200, view(of: name, entry: entry))
    }

    func putProfile(_ name: String, _ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        let entry = try AdminRequestBody.parse(request, as: AdminRequestBody.json).get()
        let created: Bool
        do {
            created = try await store.putProfile(name, entry: entry)
        } catch {
            throw AdminProblem(error, title: "Invalid profile", subject: "profile")
        }
        logger.info("admin API: profile \(created ? "added" : "replaced")", metadata: ["profile": "\(name)"])
        let shown = await store.redactedProfile(name) ?? entry
        var response = FrontResponses.json(created ? 201 : 200, view(of: name, entry: shown))
        if created { response.headers.add(name: "Location", value: "\(Self.prefix)profiles/\(name)") }
        return response
    }

    func deleteProfile(_ name: String) async throws(AdminProblem) -> HTTPResponse {
        guard await store.redactedProfile(name) != nil else { throw Self.unknownProfile(name) }
        do {
            try await store.removeProfile(name)
        } catch {
            throw AdminProblem(error, title: "Not removed", subject: "profile")
        }
        logger.info("admin API: profile removed", metadata: ["profile": "\(name)"])
        return HTTPResponse(status: 204)
    }

    /// The profile's tools as its clients see them (in search mode, the tools its search reaches), each with
    /// its server and the name that server knows it by; and the names its renames made clash.
    /// Made off the event loop and kept while the view is unchanged, as `/tools` is (``HeavyReads``).
    func listProfileTools(_ name: String) async throws(AdminProblem) -> HTTPResponse {
        guard let view = gateway.registry.profileView(name) else { throw Self.unknownProfile(name) }
        return await heavyReads.answer(.profileTools, key: "profiles/\(name)/tools", from: .object(view)) {
            let tools = view.visibleTools.compactMap { tool -> JSONValue? in
                guard let shown = tool["name"]?.stringValue, let route = view.toolRoutes[shown] else { return nil }
                return ["server": .string(route.server), "upstreamName": .string(route.name), "tool": tool]
            }
            return ["tools": .array(tools), "conflicts": .array(view.conflicts.map(JSONValue.string))]
        }
    }

    private func view(of name: String, entry: JSONValue) -> JSONValue {
        ["name": .string(name), "url": .string("/mcp/\(name)"), "config": entry]
    }

    static func unknownProfile(_ name: String) -> AdminProblem {
        AdminProblem(status: 404, title: "Unknown profile", detail: "no profile \(JSONValue.string(name).jsonText)")
    }
}
