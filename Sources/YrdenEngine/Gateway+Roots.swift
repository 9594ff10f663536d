import YrdenProtocol
import YrdenTransport

extension Gateway {
    /// A client's roots changed: every connected handshake-era upstream is told, since the gateway declared
    /// `roots` to each of them and any may ask that client again during its next call. 2026-07-28 upstreams
    /// have no such notification; they are sent roots with each request that needs them.
    func relayRootsChanged() {
        for link in snapshot.links.values where link.state.isConnected {
            guard let client = link.client, client.modernStamp == nil else { continue }
            client.notify(MCPMethod.rootsListChanged)
        }
    }
}
