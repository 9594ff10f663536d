import FoundationEssentials
import YrdenProtocol
import YrdenTransport

/// The last cell of the bridge: a 2026-07-28 client calling through a handshake-era upstream that asks
/// during the call. The upstream call is parked, the client is answered `input_required` with a sealed
/// `requestState`, and its retry resumes the parked call with the answers.
extension Gateway {
    /// The methods that may answer `input_required`.
    static let parkableMethods: Set<String> = [MCPMethod.toolsCall, MCPMethod.promptsGet, MCPMethod.resourcesRead]

    /// The refusal of a `requestState` that is not a live token of this gateway for this very request (its
    /// method, name, arguments, caller and endpoint); nothing is changed by it.
    static let invalidRequestState = JSONRPCError(
        code: -32602,
        message: "Invalid or expired requestState",
        data: ["reason": "invalid_request_state"]
    )

    /// Forwards `request` (a 2026-07-28 client's, with `forwarded` as the upstream's params) to a
    /// handshake-era upstream so that what it asks during the call becomes `input_required`, or resumes the
    /// parked call a retry names.
    func forwardParking(
        _ request: JSONRPCRequest,
        to client: UpstreamClient,
        server: String,
        params forwarded: JSONObject,
        options: RequestOptions,
        lifetime: Duration,
        _ context: ForwardContext
    ) async throws(JSONRPCError) -> Result<JSONValue, JSONRPCError> {
        let name = request.params?["name"]?.stringValue ?? request.params?["uri"]?.stringValue ?? ""
        let arguments = RequestStateSeal.digest(request.params?["arguments"])
        let principal = RequestStateSeal.digest(credential: context.principal)
        let scope = context.session.scope.claim
        var resumed: ParkedCall?
        if let state = request.params?["requestState"] {
            guard let token = state.stringValue, let claims = requestStates.open(token),
                claims.method == request.method, claims.scope == scope, claims.name == name,
                claims.arguments == arguments, claims.principal == principal,
                claims.expires > Int(Date().timeIntervalSince1970),
                let parked = parked.take(claims.park)
            else { throw Self.invalidRequestState }
            resumed = parked
        }
        let call: ParkedCall
        if let resumed, !resumed.reissues {
            call = resumed
            call.answer(request.params?["inputResponses"]?.objectValue ?? [:])
        } else {
            // A new call, or (after a URL elicitation the server required) the same call made again.
            call = ParkedCall(
                capabilities: context.clientCapabilities,
                client: context.session.client,
                server: server,
                time: connector.time
            )
            var options = options
            options.handle = call.handle
            options.relay = ParkingRelay(call: call)
            // The call's params never carry the retry's fields: a handshake-era server knows none of them.
            var params = forwarded
            params["inputResponses"] = nil
            let spec = context.snapshot.links[server]?.spec
            call.start { [params, options] in
                do throws(UpstreamError) {
                    return try await client.request(request.method, params: .object(params), options: options)
                } catch {
                    let reason = spec.map { ServerSecrets($0).scrub(error.message) } ?? error.message
                    return .failure(.upstreamUnavailable("MCP server '\(server)' failed: \(reason)", server: server))
                }
            }
        }
        let round = await withTaskCancellationHandler {
            await call.nextRound()
        } onCancel: {
            call.cancel("the client went away")
        }
        var parking = call
        let asks: JSONObject
        switch round {
        case .final(let outcome):
            guard case .failure(let error) = outcome,
                let elicitations = Self.urlElicitations(required: error, capabilities: context.clientCapabilities)
            else { return outcome }
            // 2025-11-25's -32042: the server needs URL elicitations before it can run the call at all. The
            // client is asked for them; its retry makes the call again.
            parking = ParkedCall(
                capabilities: context.clientCapabilities,
                client: context.session.client,
                server: server,
                reissues: true,
                time: connector.time
            )
            asks = elicitations
        case .asks(let pending):
            asks = pending
        }
        let id: String
        switch parked.park(parking, for: lifetime) {
        case .success(let parkedID): id = parkedID
        case .failure(let refusal):
            parking.cancel("too many calls wait for their clients")
            throw refusal
        }
        let claims = ParkClaims(
            park: id,
            method: request.method,
            scope: scope,
            name: name,
            arguments: arguments,
            principal: principal,
            expires: Int(Date().timeIntervalSince1970) + Int(lifetime.components.seconds)
        )
        return .success([
            "resultType": "input_required", "inputRequests": .object(asks),
            "requestState": .string(requestStates.seal(claims)),
        ])
    }

    /// The URL elicitations a handshake-era server's -32042 requires, as 2026-07-28 input requests (no
    /// `elicitationId`); `nil` for any other error, or for a client that did not declare URL elicitation.
    static func urlElicitations(required error: JSONRPCError, capabilities: JSONObject) -> JSONObject? {
        guard error.code == -32042, capabilities["elicitation"]?["url"] != nil,
            let elicitations = error.data?["elicitations"]?.arrayValue, !elicitations.isEmpty
        else { return nil }
        var asks = JSONObject()
        for (index, elicitation) in elicitations.enumerated() {
            guard let url = elicitation["url"]?.stringValue else { return nil }
            var params: JSONObject = ["mode": "url", "url": .string(url)]
            params["message"] = elicitation["message"] ?? .string("")
            asks["url-\(index + 1)"] = ["method": .string(MCPMethod.elicitationCreate), "params": .object(params)]
        }
        return asks
    }
}
