import YrdenAudit
import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// What every request that goes upstream passes through on its way: the caller's limits first (a refused call
/// goes nowhere), then, once it has ended, one line of the audit trail.
extension Dispatcher {
    /// Forwards `request` to `server` (see ``send(_:to:params:_:isToolCall:headers:)``) within the caller's
    /// limits, and records it in the audit trail when there is one.
    func forward(
        _ request: JSONRPCRequest,
        to server: String,
        params: JSONValue?,
        _ context: ForwardContext,
        isToolCall: Bool = false,
        headers: [(name: String, value: String)] = []
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        if let refusal = admit(request.method, params: params, server: server, context, isToolCall: isToolCall) {
            LimitMetrics.recordRefusal(refusal)
            audit?.record(
                CallAudit.refusal(
                    method: request.method,
                    params: params,
                    server: server,
                    scope: context.session.scope,
                    caller: context.caller,
                    refusal: refusal
                )
            )
            throw refusal.rpcError
        }
        guard let audit else {
            return try await send(
                request,
                to: server,
                params: params,
                context,
                isToolCall: isToolCall,
                headers: headers
            )
        }
        let started = ContinuousClock.now
        let outcome: CallAudit.Outcome
        defer {
            audit.record(
                CallAudit.record(
                    method: request.method,
                    params: params,
                    server: server,
                    scope: context.session.scope,
                    caller: context.caller,
                    outcome: outcome,
                    duration: .now - started
                )
            )
        }
        do {
            let answer = try await send(
                request,
                to: server,
                params: params,
                context,
                isToolCall: isToolCall,
                headers: headers
            )
            outcome = .answered(answer)
            return answer
        } catch {
            outcome = .failed(error)
            throw error
        }
    }

    /// The limit the call meets, or `nil` when it took its tokens. A tool is named as on `/mcp`
    /// (`<prefix><separator><name>`), whatever endpoint the call came through.
    private func admit(
        _ method: String,
        params: JSONValue?,
        server: String,
        _ context: ForwardContext,
        isToolCall: Bool
    ) -> RateLimited? {
        guard limiter.isActive else { return nil }
        var profile: String?
        if case .profile(let name) = context.session.scope { profile = name }
        var tool: String?
        if isToolCall, let name = params?["name"]?.stringValue, let prefix = context.snapshot.links[server]?.spec.prefix
        {
            tool = prefix + views.separator + name
        }
        return limiter.admit(user: context.caller.user, profile: profile, tool: tool, at: connector.time.now)
    }
}
