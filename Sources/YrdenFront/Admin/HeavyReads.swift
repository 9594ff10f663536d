import Prometheus
import YrdenHTTPServer
import YrdenProtocol

/// The admin API's listings whose cost grows with the catalog (`/tools`, a server's or a profile's lists,
/// `/logs`): answered from ``AdminReadCache`` while what they show is unchanged, else built and serialized by
/// ``HeavyReadSlots`` off the event loop; refused with 503 and `Retry-After` when too many wait.
///
/// Each answer is counted in `yrden_admin_list_reads_total{list, answer}` (`cached`, `built`, `refused`), so
/// an operator sees how often a console or a script reads whole catalogs (and `not_modified`: a server's
/// lists revalidated by their `ETag`, answered `304`).
struct HeavyReads: Sendable {
    /// The lists, a fixed set (label values of the metric).
    enum List: String, Sendable {
        case tools
        case serverTools = "server_tools"
        case serverPrompts = "server_prompts"
        case serverResources = "server_resources"
        case toolPins = "tool_pins"
        case profileTools = "profile_tools"
        case logs
    }

    static let metric = "yrden_admin_list_reads_total"
    static let help = "Admin API listings whose cost grows with the catalog, by list and how each was answered"

    let slots: HeavyReadSlots
    let cache = AdminReadCache()
    private let registry: PrometheusCollectorRegistry?

    init(registry: PrometheusCollectorRegistry?, slots: HeavyReadSlots = HeavyReadSlots()) {
        self.registry = registry
        self.slots = slots
    }

    /// The answer to a read of `list` (under `key`, when it may be cached, made from `source`): `make`'s value,
    /// built and serialized off the loop.
    func answer(
        _ list: List,
        key: String? = nil,
        from source: AdminReadCache.Source? = nil,
        headers: HTTPHeaders = [],
        _ make: @escaping @Sendable () -> JSONValue
    ) async -> HTTPResponse {
        if let key, let source, let bytes = cache.bytes(for: key, from: source) {
            count(list, "cached")
            return FrontResponses.json(200, bytes: bytes, headers: headers)
        }
        guard let bytes = await slots.run({ make().serialized() }) else {
            count(list, "refused")
            return AdminProblem(
                status: 503,
                title: "Busy",
                detail: "too many large listings are being prepared; try again in a second",
                headers: ["Retry-After": "1"]
            ).response
        }
        if let key, let source { cache.keep(bytes, for: key, from: source) }
        count(list, "built")
        return FrontResponses.json(200, bytes: bytes, headers: headers)
    }

    func count(_ list: List, _ answer: String) {
        registry?.makeCounter(
            name: Self.metric,
            labels: [("list", list.rawValue), ("answer", answer)],
            help: Self.help
        )
        .increment()
    }
}
