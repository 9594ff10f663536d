/// Who a request came from when proxies stand in front: the nearest address in `X-Forwarded-For` that is not one
/// of the trusted proxies.
///
/// Only a trusted peer's header is read, and it is read from the right, where each proxy appended the address it
/// saw: entries a client wrote itself sit further left and are never reached past an untrusted hop. An entry that
/// is not an address stops the walk at the proxy that passed it on. Behind a balancer, this keeps the bounds one
/// client may hold (sessions, parked calls) per client rather than one for everyone behind the balancer.
package enum ForwardedClient {
    package static let header = "X-Forwarded-For"

    package static func resolve(
        peer: PeerAddress?,
        forwardedFor values: [String],
        trusting proxies: [PeerNetwork]
    )
        -> PeerAddress?
    {
        guard var client = peer, !proxies.isEmpty, trusts(proxies, client) else { return peer }
        for value in values.reversed() {
            for entry in value.split(separator: ",").reversed() {
                let text = entry.split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? ""
                guard let hop = PeerAddress(parsing: text) else { return client }
                client = hop
                if !trusts(proxies, hop) { return hop }
            }
        }
        return client
    }

    private static func trusts(_ proxies: [PeerNetwork], _ address: PeerAddress) -> Bool {
        proxies.contains { $0.contains(address) }
    }
}
