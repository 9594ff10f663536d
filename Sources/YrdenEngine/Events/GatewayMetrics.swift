import CoreMetrics
import Synchronization
import YrdenProtocol
import YrdenTransport

/// The gateway's metrics, through swift-metrics (the CLI bootstraps the Prometheus backend).
///
/// Every label value is a configured server id or a member of a fixed set (methods the gateway knows, error
/// kinds, state names), so a client sending made-up method names cannot grow the metric set.
enum GatewayMetrics {
    static let requests = "yrden_upstream_requests_total"
    static let durationLabel = "yrden_upstream_request_duration_seconds"
    static let errors = "yrden_upstream_errors_total"
    static let stateLabel = "yrden_upstream_state"
    static let reconnects = "yrden_upstream_reconnects_total"
    static let shedNotifications = "yrden_upstream_notifications_shed_total"
    /// Why a notification from an upstream was not queued: a list change already waiting (`coalesced`), any
    /// other past the queue's bound (`dropped`), or a log message that said no request while several requests
    /// in flight had asked for logs (`unattributed_log`).
    static let shedReasons = ["coalesced", "dropped", "unattributed_log"]

    static let methods: Set<String> = [
        MCPMethod.toolsCall, MCPMethod.toolsList, MCPMethod.promptsGet, MCPMethod.promptsList,
        MCPMethod.resourcesRead, MCPMethod.resourcesList, MCPMethod.resourceTemplatesList,
        MCPMethod.completionComplete, MCPMethod.ping, MCPMethod.loggingSetLevel,
    ]
    static let states = [
        "idle", "connecting", "authenticating", "connected", "failed", "disconnected", "disabled", "stopped",
    ]

    /// One request forwarded to `server`: counted, timed, and its transport failure counted by kind.
    static func recordRequest(server: String, method: String, duration: Duration, failure: UpstreamError.Kind?) {
        let method = methods.contains(method) ? method : "other"
        let handles = requestHandles.handles(server: server, method: method)
        handles.count.increment()
        handles.duration.recordInterval(duration)
        if let failure {
            Counter(label: errors, dimensions: [("server", server), ("kind", failure.rawValue)]).increment()
        }
    }

    /// Keeps `yrden_upstream_state{server, state}` at 1 for the server's current state and 0 for the others;
    /// a server that is gone (`nil`) loses every series it had.
    static func recordState(server: String, state current: String?) {
        guard let current else { return forget(server: server) }
        for name in states {
            Gauge(label: stateLabel, dimensions: [("server", server), ("state", name)]).record(name == current ? 1 : 0)
        }
    }

    /// Drops every series labelled with `server`, so a removed server does not linger in scrapes as zeros.
    /// The label sets are all known (fixed methods, kinds and states), so each one can be named and destroyed.
    static func forget(server: String) {
        requestHandles.forget(server: server)
        for name in states {
            Gauge(label: stateLabel, dimensions: [("server", server), ("state", name)]).destroy()
        }
        for method in methods.union(["other"]) {
            let dimensions = [("server", server), ("method", method)]
            Counter(label: requests, dimensions: dimensions).destroy()
            Timer(label: durationLabel, dimensions: dimensions).destroy()
        }
        for kind in UpstreamError.Kind.allCases {
            Counter(label: errors, dimensions: [("server", server), ("kind", kind.rawValue)]).destroy()
        }
        Counter(label: reconnects, dimensions: [("server", server)]).destroy()
        for reason in shedReasons {
            Counter(label: shedNotifications, dimensions: [("server", server), ("reason", reason)]).destroy()
        }
    }

    /// Notifications `server` sent that were coalesced or dropped since the last call (counted in batches:
    /// a flood must not cost a metric update per notification).
    static func recordShedNotifications(server: String, coalesced: Int, dropped: Int) {
        for (reason, count) in zip(shedReasons, [coalesced, dropped]) where count > 0 {
            Counter(label: shedNotifications, dimensions: [("server", server), ("reason", reason)]).increment(by: count)
        }
    }

    /// A log message of `server` dropped because whose it was could not be told.
    static func recordUnattributedLog(server: String) {
        Counter(label: shedNotifications, dimensions: [("server", server), ("reason", "unattributed_log")]).increment()
    }

    /// The request counter and timer of each server and method, made once: asking the backend for them by
    /// label on every call took a registry lock and built their names each time.
    static let requestHandles = RequestMetricHandles()

    static func recordReconnect(server: String) {
        Counter(label: reconnects, dimensions: [("server", server)]).increment()
    }
}

extension Timer {
    fileprivate func recordInterval(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// The request counter and timer per server and method, kept for reuse. Bounded: methods come from a fixed
/// set and servers from the config, and a server's handles go when it does.
final class RequestMetricHandles: Sendable {
    struct Key: Hashable {
        var server: String
        var method: String
    }

    struct Handles: Sendable {
        var count: Counter
        var duration: Timer
    }

    private let handles = Mutex<[Key: Handles]>([:])

    func handles(server: String, method: String) -> Handles {
        let key = Key(server: server, method: method)
        if let known = handles.withLock({ $0[key] }) { return known }
        let dimensions = [("server", server), ("method", method)]
        let made = Handles(
            count: Counter(label: GatewayMetrics.requests, dimensions: dimensions),
            duration: Timer(label: GatewayMetrics.durationLabel, dimensions: dimensions)
        )
        return handles.withLock { handles in
            if let raced = handles[key] { return raced }
            handles[key] = made
            return made
        }
    }

    func forget(server: String) {
        handles.withLock { handles in handles = handles.filter { $0.key.server != server } }
    }
}
