import Synchronization
import YrdenEngine
import YrdenProtocol
import YrdenTransport

/// What each server said on its last successful connection (its protocol version, its `serverInfo`, the lists
/// it offered), and the error that ended its last connection or attempt.
///
/// The engine forgets a connection's handshake and catalog when it ends, and a failure's reason once the next
/// attempt starts, but operators want them exactly then ("which tools did it have, why does it keep
/// reconnecting?"), and the API promises them. So the admin API keeps them: it follows every gateway event,
/// looks at the snapshot before every answer, and forgets a server when it is removed.
final class UpstreamMemory: Sendable {
    struct Remembered: Sendable, Hashable {
        var protocolVersion: String
        var serverInfo: JSONValue
        var catalog: ServerCatalog
    }

    private struct Known {
        var connections: [String: Remembered] = [:]
        var lastErrors: [String: UpstreamError] = [:]
    }

    private let known = Mutex(Known())

    init() {}

    /// Keeps what every connected server offers now, and each server's failure; forgets servers that are gone.
    func observe(_ snapshot: Gateway.Snapshot) {
        var connections: [String: Remembered] = [:]
        for (id, link) in snapshot.links {
            guard let handshake = link.handshake, let catalog = link.catalog else { continue }
            connections[id] = Remembered(
                protocolVersion: handshake.protocolVersion,
                serverInfo: handshake.serverInfo,
                catalog: catalog
            )
        }
        known.withLock { known in
            known.connections = known.connections.filter { snapshot.links[$0.key] != nil }
            known.connections.merge(connections) { _, new in new }
            known.lastErrors = known.lastErrors.filter { snapshot.links[$0.key] != nil }
        }
        for (id, link) in snapshot.links { note(id, link.state) }
    }

    /// Records a failure, and forgets it once the server is connected again.
    func note(_ id: String, _ state: ConnectionState) {
        known.withLock { known in
            if let error = state.lastError {
                known.lastErrors[id] = error
            } else if state.isConnected {
                known.lastErrors[id] = nil
            }
        }
    }

    func forget(_ id: String) {
        known.withLock { known in
            known.connections[id] = nil
            known.lastErrors[id] = nil
        }
    }

    func remembered(_ id: String) -> Remembered? {
        known.withLock { $0.connections[id] }
    }

    /// The error that ended the server's last connection or attempt; `nil` before any and once connected again.
    func lastError(_ id: String, now state: ConnectionState) -> UpstreamError? {
        if let error = state.lastError { return error }
        if state.isConnected { return nil }
        return known.withLock { $0.lastErrors[id] }
    }

    /// Follows `events` until the stream ends (the gateway stops), observing `gateway` after each one.
    func follow(_ events: AsyncStream<GatewayEvent>, of gateway: Gateway) async {
        for await event in events {
            switch event {
            case .serverRemoved(let id): forget(id)
            case .serverAdded(let status), .serverState(let status): note(status.id, status.state)
            case .serverCatalog: break
            }
            observe(gateway.snapshot)
        }
    }
}
