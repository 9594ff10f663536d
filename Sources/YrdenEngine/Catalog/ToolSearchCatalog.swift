import Synchronization
import YrdenConfig
import YrdenExecution
import YrdenProtocol
import YrdenSearch
import YrdenTransport

/// The one search index over every connected server's tools, shared by every profile in search mode (each
/// filters the hits to its own tools). Updated one server at a time when that server's tools change, never
/// rebuilt per profile, session or request; kept only while some profile searches.
final class ToolSearchCatalog: Sendable {
    private struct State {
        var index = ToolSearchIndex()
        /// Whether the index holds every connected server's tools (false until a search profile needs it).
        var complete = false
    }

    private let state = Mutex(State())
    /// The searches running and waiting.
    let slots = OffLoopSlots.toolSearches()

    /// Brings the index up to date with `snapshot`: every server when it was not kept so far, else the servers
    /// whose tools changed. Drops it when no profile searches.
    func update(_ snapshot: Gateway.Snapshot, changedServers: some Sequence<String>) {
        guard snapshot.profileSpecs.values.contains(where: { $0.toolMode == .search }) else {
            return state.withLock { if $0.complete { $0 = State() } }
        }
        let complete = state.withLock { $0.complete }
        let servers = complete ? Array(changedServers) : snapshot.order
        let documents = servers.map { id in (id, Self.documents(of: id, snapshot)) }
        state.withLock { state in
            for (id, tools) in documents {
                if let tools {
                    _ = state.index.replace(server: id, tools: tools)
                } else {
                    state.index.remove(server: id)
                }
            }
            if !complete {
                for gone in Set(state.index.servers).subtracting(snapshot.order) { state.index.remove(server: gone) }
            }
            state.complete = true
        }
    }

    /// The best matches, or the weak ones when nothing matches (``ToolSearchIndex/searchOrNearest(_:limit:where:)``),
    /// found on the global executor a few at a time (``OffLoopSlots/toolSearches()``, waiting on `time`).
    /// Searched on a copy of the index, so a search holds neither the writer nor another search.
    func search(
        _ query: String,
        limit: Int,
        time: any TimeSource,
        where include: @escaping @Sendable (ToolKey) -> Bool
    ) async throws(OffLoopSlots.Refusal) -> SearchResults {
        let index = state.withLock { $0.index }
        return try await slots.run(waitingOn: time.slotSleep) {
            index.searchOrNearest(query, limit: limit, where: include)
        }
    }

    /// Server `id`'s tools as the index reads them (its tool filter applied); `nil` while it is not connected.
    private static func documents(of id: String, _ snapshot: Gateway.Snapshot) -> [SearchableTool]? {
        guard let link = snapshot.links[id], link.state.isConnected, let catalog = link.catalog else { return nil }
        return catalog.tools.compactMap { tool in
            guard let name = tool["name"]?.stringValue, link.spec.toolFilter.permits(name) else { return nil }
            let properties = tool["inputSchema"]?["properties"]?.objectValue
            var descriptions: [String: String] = [:]
            for (argument, schema) in properties ?? JSONObject() {
                if let text = schema["description"]?.stringValue { descriptions[argument] = text }
            }
            return SearchableTool(
                server: id,
                name: name,
                title: tool["title"]?.stringValue ?? tool["annotations"]?["title"]?.stringValue,
                description: tool["description"]?.stringValue,
                argumentNames: properties?.map(\.key) ?? [],
                argumentDescriptions: descriptions
            )
        }
    }
}
