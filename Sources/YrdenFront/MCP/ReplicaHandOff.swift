import Logging
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// How a replica hands a request to another replica of the gateway and relays its answer: the retry of a call
/// parked on the replica that holds it. Implemented over HTTP by the composition root.
package protocol ReplicaHandOff: Sendable {
    /// `request` sent as it came to `replica` (a base URL), marked handed off; the answer as it comes back, or
    /// `nil` when that replica cannot be reached (gone, or not answering within its bound).
    func handOff(_ request: HTTPRequest, to replica: String) async -> HTTPResponse?
}

extension MCPEndpoint {
    /// Marks a request one replica handed to another: the receiver answers it itself, never hands it on.
    package static let handedOffHeader = "X-Yrden-Handed-Off"

    /// The retry of a call parked on another replica, handed to that replica; `nil` when this replica answers
    /// `call` itself. When the holder cannot be reached, the retry is refused with the reason, never left to
    /// hang: the client makes the call again.
    func handOffIfHeldElsewhere(_ call: JSONRPCRequest, _ request: HTTPRequest) async -> HTTPResponse? {
        guard let holder = gateway.replicaHolding(call) else { return nil }
        guard request.headers[Self.handedOffHeader] == nil, let replicas else {
            return Self.heldElsewhere(call, "the replica that holds this call cannot be reached from this one")
        }
        if let answer = await replicas.handOff(request, to: holder) { return answer }
        logger.warning("a parked call's replica did not answer its retry", metadata: ["replica": "\(holder)"])
        return Self.heldElsewhere(call, "the replica that held this call is gone; make the call again")
    }

    private static func heldElsewhere(_ call: JSONRPCRequest, _ reason: String) -> HTTPResponse {
        let error = JSONRPCError(
            code: -32602,
            message: "Invalid or expired requestState: \(reason)",
            data: ["reason": "replica_unavailable"]
        )
        return FrontResponses.jsonRPC(400, .response(JSONRPCResponse(id: call.id, error: error)))
    }
}
