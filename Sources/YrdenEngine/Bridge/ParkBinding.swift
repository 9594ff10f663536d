import YrdenProtocol

/// What a parked call's token binds besides the call: the request's method, name and arguments, its caller and
/// its endpoint; a retry that differs in any of them is refused.
struct ParkBinding {
    let method: String
    let scope: String
    let name: String
    let arguments: String
    let principal: String

    init(_ request: JSONRPCRequest, _ context: ForwardContext) {
        method = request.method
        scope = context.session.scope.claim
        name = request.params?["name"]?.stringValue ?? request.params?["uri"]?.stringValue ?? ""
        arguments = RequestStateSeal.digest(request.params?["arguments"])
        // The principal a token proved (a user whose refreshed token retries the call is still that user), else
        // the credential as sent.
        principal = RequestStateSeal.digest(credential: context.caller.provenPrincipal ?? context.principal)
    }

    func matches(_ claims: ParkClaims) -> Bool {
        claims.method == method && claims.scope == scope && claims.name == name && claims.arguments == arguments
            && claims.principal == principal
    }

    func claims(park: String, expires: Int, replica: String?) -> ParkClaims {
        ParkClaims(
            park: park,
            method: method,
            scope: scope,
            name: name,
            arguments: arguments,
            principal: principal,
            expires: expires,
            replica: replica
        )
    }
}
