import Prometheus
import YrdenExecution
import YrdenHTTPServer
import YrdenProtocol

/// The admin API's listings whose cost grows with the catalog (`/tools`, a server's or a profile's lists,
/// `/logs`): answered from ``AdminReadCache`` while what they show is unchanged, else built and serialized by
/// ``OffLoopSlots`` off the event loop (2 at once, 32 waiting at most 10 s); refused with 503 and `Retry-After`
/// when the line is full or the wait too long.
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

    let slots: OffLoopSlots
    let cache = AdminReadCache()
    private let registry: PrometheusCollectorRegistry?

    init(registry: PrometheusCollectorRegistry?, slots: OffLoopSlots = Self.slots()) {
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
        guard let bytes = try? await slots.run({ make().serialized() }) else {
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

    /// The listings' slots: 2 at once (a burst of listings cannot take every core from the requests it would
    /// delay), 32 waiting at most 10 s of real time.
    static func slots() -> OffLoopSlots { OffLoopSlots(running: 2, waiting: 32, patience: .seconds(10)) }

    func count(_ list: List, _ answer: String) {
        registry?.makeCounter(
            name: Self.metric,
            labels: [("list", list.rawValue), ("answer", answer)],
            help: Self.help
        )
        .increment()
    }
}
