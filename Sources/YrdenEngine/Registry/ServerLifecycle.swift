import Logging
import YrdenConfig
import YrdenTelemetry
import YrdenTransport

/// The owners an upstream's connection reports to: the registry (its link, its log ring), dispatch (what it
/// sends sessions), pinning (its tools), the event bus and the connector (channels, sign-ins, time). A
/// connection holds these, not the gateway, so the lifecycle that makes connections can be built before it.
struct ConnectionOwners: Sendable {
    let registry: ServerRegistry
    let dispatcher: Dispatcher
    let pinning: ToolPinning
    let events: EventBus
    let connector: UpstreamConnector
}

/// The servers' lifecycle: the operators' commands (add, remove, replace, reconcile, connect, disconnect,
/// restart) and every server's connection, which ``Gateway/run()`` runs.
///
/// A command changes the servers' links through the registry's writer and then starts or stops connections;
/// the connections alone change a link's state after that.
package final class ServerLifecycle: Sendable {
    let owners: ConnectionOwners
    /// The gateway's own entries (servers added, removed, reconfigured).
    let log: LogRing
    let logger: Logger
    /// Every server's connection; started into ``Gateway/run()``'s task group.
    let connections = UpstreamConnections()

    var registry: ServerRegistry { owners.registry }
    var pinning: ToolPinning { owners.pinning }
    var connector: UpstreamConnector { owners.connector }

    init(owners: ConnectionOwners, log: LogRing, logger: Logger) {
        self.owners = owners
        self.log = log
        self.logger = logger
    }

    /// Runs every connection, the ones started now and those later commands add, each as a task of `group`,
    /// until the calling task is cancelled; then nothing starts any more.
    func runConnections(in group: inout DiscardingTaskGroup) async {
        while let connection = await connections.next() {
            group.addTask {
                await connection.run()
                self.connections.ended(connection)
            }
        }
        connections.close()
    }

    /// Makes a new connection own `spec`'s link and hands it to the run; it opens nothing before the
    /// server's previous connection, if one is still stopping, has finished. `cause`: the operator's change
    /// that started it (its `config.change` span), parent of the first attempt's own requests' spans.
    func startConnection(_ spec: ServerSpec, cause: SpanContext? = nil) async {
        await startConnections([spec], cause: cause)
    }

    /// ``startConnection(_:cause:)`` for many servers, their links claimed in one change (200 servers at
    /// startup rebuild the aggregate once, not 200 times).
    func startConnections(_ specs: [ServerSpec], cause: SpanContext? = nil) async {
        let owners = specs.map { _ in connections.newOwner() }
        let owned = await registry.update { snapshot -> [Bool] in
            zip(specs, owners).map { spec, owner in
                guard snapshot.links[spec.id]?.spec == spec else { return false }
                snapshot.links[spec.id]?.owner = owner
                return true
            }
        }
        for ((spec, owner), isOwned) in zip(zip(specs, owners), owned) where isOwned {
            var logger = self.logger
            logger[metadataKey: "yrden.upstream"] = "\(spec.id)"
            connections.add(
                UpstreamConnection(
                    spec: spec,
                    owners: self.owners,
                    logger: logger,
                    owner: owner,
                    previous: connections.stillStopping(spec.id),
                    cause: cause
                )
            )
        }
    }
}
