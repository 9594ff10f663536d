import YrdenEngine

/// A test's handle on a running gateway (the engine tests' `RunningGateway`, the front tests' `InProcessFront`)
/// and the waits on its state that both use.
package protocol GatewayWaits {
    var gateway: Gateway { get }
}

extension GatewayWaits {
    /// Waits until `condition` holds for the gateway's snapshot, re-checked at each gateway event, for at most
    /// `limit` of real time: for lasting conditions (a server connected), never for a passing one. `false` if it
    /// never did.
    @discardableResult
    package func until(
        within limit: Duration = .seconds(10),
        _ condition: @escaping @Sendable (Gateway.Snapshot) -> Bool
    ) async -> Bool {
        let gateway = self.gateway
        // Subscribed before the first look, so a change between the look and the wait is still an event.
        let events = gateway.events.subscribe()
        if condition(gateway.snapshot) { return true }
        let seen = await withDeadline(limit) {
            for await _ in events where condition(gateway.snapshot) { return true }
            return false
        }
        return seen == true || condition(gateway.snapshot)
    }

    /// Waits until every server in `ids` is connected (its lists loaded and merged).
    @discardableResult
    package func connected(_ ids: String...) async -> Bool {
        await until { snapshot in ids.allSatisfy { snapshot.links[$0]?.state.isConnected == true } }
    }
}
