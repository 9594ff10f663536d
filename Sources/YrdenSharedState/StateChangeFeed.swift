import Logging
import PostgresNIO

/// What another replica (or this one) changed, as `NOTIFY` tells it; or, after the feed (re)connected, that
/// anything may have changed while it was not listening.
package enum StateChange: Sendable, Equatable {
    case changed(name: String, version: Int64)
    /// Read everything again: notifications sent while the feed was down are lost.
    case resync
}

extension SharedStateDatabase {
    /// Listens for changes until the task is cancelled, calling `apply` for each, one at a time, in order.
    ///
    /// A connection of its own (a pooled one would be handed back between queries and stop listening). When it
    /// drops, the feed reconnects with backoff (0.2 s doubling to 5 s) and begins with ``StateChange/resync``,
    /// so a notification missed while it was down loses nothing; the first connection begins with one too, for
    /// what changed between the caller's first read and the listen. `onState` hears whether it is listening.
    package func follow(
        onState: @escaping @Sendable (_ listening: Bool) -> Void = { _ in },
        apply: @escaping @Sendable (StateChange) async -> Void
    ) async {
        var backoff = Duration.milliseconds(200)
        var id = 0
        // Said once per outage: a warning when the feed is lost, a notice when it is back.
        var lost = false
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        while !Task.isCancelled {
            id += 1
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: try location.connectionConfiguration(),
                    id: id,
                    logger: quiet
                )
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: Self.channel) { notifications in
                    if lost {
                        logger.notice("store change feed is back; reading what changed meanwhile")
                        lost = false
                    }
                    onState(true)
                    backoff = .milliseconds(200)
                    await apply(.resync)
                    for try await notification in notifications {
                        guard let change = Self.change(from: notification.payload) else { continue }
                        await apply(change)
                    }
                }
            } catch is CancellationError {
                break
            } catch {
                if Task.isCancelled { break }
                if !lost {
                    logger.warning(
                        "store change feed lost; reconnecting until it is back",
                        metadata: ["store": "\(location.description)", "reason": "\(Self.reason(error))"]
                    )
                    lost = true
                }
            }
            onState(false)
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(5))
        }
        onState(false)
    }

    /// `<version> <name>` → a change; anything else is ignored.
    static func change(from payload: String) -> StateChange? {
        guard let space = payload.firstIndex(of: " "), let version = Int64(payload[..<space]) else { return nil }
        return .changed(name: String(payload[payload.index(after: space)...]), version: version)
    }
}
