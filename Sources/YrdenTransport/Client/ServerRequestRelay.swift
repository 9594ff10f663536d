import YrdenProtocol

/// Carries a request the upstream sends the gateway (sampling, elicitation, roots) to the client whose
/// call caused it, and its answer back.
///
/// Given with each request forwarded upstream (``RequestOptions/relay``): the upstream's request is matched
/// to the call it arrived with (the SSE stream of that call's POST), or, where the transport cannot tell
/// (stdio, a GET stream), to the one client all calls in flight belong to. Anything else is refused.
package protocol ServerRequestRelay: Sendable {
    /// Who made the call: two relays with the same caller reach the same client.
    var caller: ObjectIdentifier { get }
    /// The client's answer to `request` (its id is the gateway's to map); never hangs past a deadline.
    func relay(_ request: JSONRPCRequest) async -> Result<JSONValue, JSONRPCError>
    /// Whether a request handed over waits in a bounded place of the relay's own (a parked call's asks)
    /// rather than in one of the upstream's relay slots: such a relay frees its slot as soon as it has the
    /// request, so clients that never come back for what they were asked do not take the slots every other
    /// client's call needs.
    var waitsOutsideRelaySlots: Bool { get }
    /// Whether the call waits for its client to answer what it already asked (a parked call whose asks
    /// were handed to the client): such a call is not the one asking when a server does not say (stdio).
    var isWaitingForClient: Bool { get }
    /// Who the client is across its sessions (a credential's digest, else its address), for its share of the
    /// upstream's relay slots; `nil` when unknown (a stdio client, the only one of its pipe).
    var clientID: String? { get }
}

extension ServerRequestRelay {
    package var waitsOutsideRelaySlots: Bool { false }
    package var isWaitingForClient: Bool { false }
    package var clientID: String? { nil }
}

/// Whose a request from the upstream is, as far as the gateway can tell.
package enum RelayTarget {
    /// The caller of the call it belongs to.
    case relay(any ServerRequestRelay)
    /// No client's call to this server is in flight: a server may ask only while it serves a call.
    case noCall
    /// Calls of several clients are in flight and the transport does not say which one it asks about.
    case severalCallers
}

extension PendingRequests {
    /// Whose a request from the upstream is: the caller of request `related` when the transport says which
    /// request it came with, else the caller of every client call in flight when they all share one.
    ///
    /// A call waiting for its client's answers (parked, its asks handed out) is blocked on them and is not
    /// taken to ask again: were it counted, one client that never retries would make every other client's
    /// request unattributable for as long as its call lives. Only when every call in flight waits are they
    /// all candidates (a server that asks twice for one call, the second time late).
    func relayTarget(relatedTo related: Int?) -> RelayTarget {
        var relays = relays(relatedTo: related)
        let running = relays.filter { !$0.isWaitingForClient }
        if !running.isEmpty { relays = running }
        guard let last = relays.last else { return .noCall }
        guard relays.allSatisfy({ $0.caller == last.caller }) else { return .severalCallers }
        return .relay(last)
    }
}
