/// Something an operator watching the gateway wants to know as it happens.
package enum GatewayEvent: Sendable, Hashable {
    case serverAdded(ServerStatus)
    case serverRemoved(id: String)
    /// The server's state changed (connecting, connected, failed with its reason, its next retry…).
    case serverState(ServerStatus)
    /// What the server contributes to the aggregate changed.
    case serverCatalog(ServerStatus)
    /// A tool's definition changed, changed back to its pinned one, or was approved.
    case toolPin(ToolPinEvent)

    /// The events that lead from one snapshot to the next, servers in config order.
    static func changes(from before: ServerRegistry.Snapshot, to after: ServerRegistry.Snapshot) -> [GatewayEvent] {
        var events: [GatewayEvent] = []
        for id in before.order where after.links[id] == nil {
            events.append(.serverRemoved(id: id))
        }
        for id in after.order {
            guard let now = after.status(of: id) else { continue }
            guard let then = before.status(of: id) else {
                events.append(.serverAdded(now))
                continue
            }
            if now.state != then.state || now.spec != then.spec || now.auth != then.auth {
                events.append(.serverState(now))
            }
            if now.counts != then.counts { events.append(.serverCatalog(now)) }
        }
        return events
    }
}

/// An event with its place in the order the gateway announced it.
package struct SequencedEvent: Sendable, Hashable {
    /// One more than the event published before it: rises in the order events were announced, which for a
    /// server's changes is the order they were applied. A subscriber that sees a gap lost events (it read too
    /// slowly, and the oldest of its backlog were dropped).
    package let sequence: UInt64
    package let event: GatewayEvent
}

/// A change to one pinned tool, with what the gateway does about it.
package struct ToolPinEvent: Sendable, Hashable {
    package var change: PinChange
    /// Whether the tool is now withheld from clients (a change under `enforce`).
    package var withheld: Bool

    package var name: String { "tool.\(change.kind.rawValue)" }
}
