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
}

extension PendingRequests {
    /// The relay that a request from the upstream belongs to: the one of request `related` when the
    /// transport says which request it came with, else the caller's of every request in flight when they
    /// all share one; `nil` when it cannot be told.
    func relay(relatedTo related: Int?) -> (any ServerRequestRelay)? {
        let relays = relays(relatedTo: related)
        guard let last = relays.last, relays.allSatisfy({ $0.caller == last.caller }) else { return nil }
        return last
    }
}
