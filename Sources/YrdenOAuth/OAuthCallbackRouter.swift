import Synchronization

/// Routes the browser's return to `GET /oauth/callback` to the sign-in it belongs to, by `state`.
///
/// One router serves every server. A flow is registered before its URL is shown, so a fast browser can never
/// arrive first; each server has at most one pending flow (a new one replaces the old, whose `state` then
/// stops working); a flow lives ``flowLifetime`` and is dropped after that. A `state` is single-use: the
/// flow is removed before its code is redeemed, so a replayed callback finds nothing. A request that names no
/// pending flow changes nothing.
package final class OAuthCallbackRouter: Sendable {
    /// How long a user has to finish signing in.
    package static let flowLifetime: Double = 300
    /// How many finished `state`s are remembered, so a reload of the callback page says "already used".
    static let usedStateMemory = 64

    private struct State {
        var flows: [String: PendingAuthorization] = [:]
        var used: [String] = []

        mutating func remove(_ state: String) -> PendingAuthorization? {
            guard let flow = flows.removeValue(forKey: state) else { return nil }
            used.append(state)
            if used.count > OAuthCallbackRouter.usedStateMemory { used.removeFirst() }
            return flow
        }
    }

    private let clock: OAuthClock
    private let state = Mutex(State())
    /// Where a `state` this router never issued is looked for: a sign-in another replica sharing the store
    /// started (a balancer sends the browser's return to any replica). Nil without a shared store.
    private let elsewhere = Mutex<(@Sendable (String) async -> PendingAuthorization?)?>(nil)

    package init(clock: OAuthClock = .system) {
        self.clock = clock
    }

    /// Sets where a `state` this router never issued is looked for (see `elsewhere`).
    package func lookElsewhere(_ finder: @escaping @Sendable (_ state: String) async -> PendingAuthorization?) {
        elsewhere.withLock { $0 = finder }
    }

    /// Servers with a pending flow, sorted.
    package var pendingServerIDs: [String] {
        state.withLock { $0.flows.values.map(\.serverID).sorted() }
    }

    /// Adds `flow`, replacing any flow pending for the same server; returns the replaced ones, which the
    /// caller ends (``PendingAuthorization/abandon``). Synchronous, so a session can check that it is still
    /// the newest sign-in and register in one step.
    func register(_ flow: PendingAuthorization) -> [PendingAuthorization] {
        state.withLock { state in
            let replaced = state.flows.values.filter { $0.serverID == flow.serverID }
            for old in replaced { _ = state.remove(old.state) }
            state.flows[flow.state] = flow
            return replaced
        }
    }

    /// Removes the flows pending for `serverID` without ending them (the caller knows why they stop).
    @discardableResult
    func cancel(serverID: String) -> [PendingAuthorization] {
        state.withLock { state in
            let cancelled = state.flows.values.filter { $0.serverID == serverID }
            for flow in cancelled { _ = state.remove(flow.state) }
            return cancelled
        }
    }

    /// Handles the URL the browser was redirected to (or that a user pasted into the admin API).
    ///
    /// `serverID`, when given, is the server the caller expects: a `state` of another server's flow is
    /// rejected and that flow left alone.
    package func handleCallback(url: String, serverID: String? = nil) async -> OAuthCallbackResult {
        guard let response = AuthorizationResponse(callbackURL: url) else {
            return .rejected(
                reason: "the URL has no readable query (or repeats a parameter); it is not a sign-in callback"
            )
        }
        return await handleCallback(response, serverID: serverID)
    }

    /// Handles the decoded query of `GET /oauth/callback`.
    package func handleCallback(query: [String: String], serverID: String? = nil) async -> OAuthCallbackResult {
        await handleCallback(AuthorizationResponse(query: query), serverID: serverID)
    }

    package func handleCallback(_ response: AuthorizationResponse, serverID: String?) async -> OAuthCallbackResult {
        guard let flowState = response.state, !flowState.isEmpty else {
            return .rejected(reason: "the callback has no state parameter, so it cannot belong to a sign-in")
        }
        guard response.code != nil || response.error != nil else {
            return .rejected(reason: "the callback has neither a code nor an error")
        }
        let now = clock.now()
        enum Lookup {
            case found(PendingAuthorization)
            case expired(PendingAuthorization)
            case otherServer
            case used
            case unknown
        }
        let lookup: Lookup = state.withLock { state in
            guard let flow = state.flows[flowState] else {
                return state.used.contains(flowState) ? .used : .unknown
            }
            if let serverID, flow.serverID != serverID { return .otherServer }
            _ = state.remove(flowState)
            return flow.expiresAt <= now ? .expired(flow) : .found(flow)
        }
        switch lookup {
        case .unknown:
            if let finder = elsewhere.withLock({ $0 }), let flow = await finder(flowState) {
                if let serverID, flow.serverID != serverID {
                    return .rejected(reason: "this sign-in belongs to another server")
                }
                guard flow.expiresAt > now else { return .rejected(reason: "this sign-in expired; start a new one") }
                return await finish(flow, with: response)
            }
            return .rejected(reason: "this sign-in link is unknown or was replaced by a newer sign-in; start a new one")
        case .used:
            return .rejected(reason: "this sign-in was already completed or ended; start a new one if needed")
        case .otherServer:
            return .rejected(reason: "this sign-in belongs to another server")
        case .expired(let flow):
            await flow.abandon(Self.expiryReason)
            return .rejected(reason: "this sign-in expired; start a new one")
        case .found(let flow):
            return await finish(flow, with: response)
        }
    }

    /// Drops every flow whose time is up, ending each.
    package func removeExpired() async {
        let now = clock.now()
        let expired = state.withLock { state in
            let expired = state.flows.values.filter { $0.expiresAt <= now }
            for flow in expired { _ = state.remove(flow.state) }
            return expired
        }
        for flow in expired { await flow.abandon(Self.expiryReason) }
    }

    static let expiryReason = "the sign-in was not completed within 5 minutes; start a new one"

    /// Checks `iss` (RFC 9207) before anything else in the response is believed, then redeems the code or
    /// ends the flow with the authorization server's error.
    private func finish(_ flow: PendingAuthorization, with response: AuthorizationResponse) async -> OAuthCallbackResult
    {
        let failure: String?
        if let issuer = response.issuer, issuer != flow.issuer {
            failure =
                "the response came from the issuer \(printable(issuer, limit: 200)), not \(flow.issuer) "
                + "where the sign-in started; the code was not used"
        } else if response.issuer == nil && flow.issuerRequired {
            failure =
                "the response has no iss parameter although \(flow.issuer) promises one; the code was not used"
        } else if let error = response.error {
            var reason = "the authorization server answered error=\(printable(error, limit: 64))"
            if let description = response.errorDescription, !description.isEmpty {
                reason += ": \(printable(description, limit: 300))"
            }
            failure = reason
        } else {
            failure = nil
        }
        if let failure {
            await flow.abandon(failure)
            return .failed(serverID: flow.serverID, reason: failure)
        }
        return await flow.redeem(response.code ?? "")
    }
}
