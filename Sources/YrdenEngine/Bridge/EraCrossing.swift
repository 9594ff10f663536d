import YrdenProtocol
import YrdenTransport

/// How one call crosses from its client's era to its upstream's, decided here so that dispatch never asks
/// which era either side speaks.
///
/// | client → upstream | what the upstream asks during the call | the client's log level |
/// |---|---|---|
/// | handshake → handshake | relayed on the call's stream | the session's, sent once |
/// | handshake → 2026-07-28 | its `input_required` asked of the client for real | the session's, on each request |
/// | 2026-07-28 → handshake | the call parks behind `input_required` | the request's |
/// | 2026-07-28 → 2026-07-28 | its `input_required` passed through as it came | the request's |
struct EraCrossing: Sendable {
    /// The call runs parked (``EraBridge/forwardParking``), so that it can outlive an `input_required` answer.
    let parks: Bool
    /// A 2026-07-28 upstream's `input_required` is resolved by asking the client (``EraBridge/resolve``).
    let resolvesInputRequired: Bool
    /// The call's log messages are its own client's alone: a 2026-07-28 client's level is its request's,
    /// where a handshake-era session's messages reach it as events.
    let asksForLogs: Bool
    /// What a 2026-07-28 upstream is told the client can do for this call; `nil` for a handshake-era one.
    let upstreamCapabilities: JSONObject?
    /// Whether the client takes requests during the call: 2026-07-28 has no server-to-client requests, so
    /// what reaches its relay is what the parked path cannot carry (``refusal(of:)``).
    let takesRequests: Bool

    init(
        method: String,
        session: DownstreamSession,
        clientCapabilities: JSONObject,
        hasStream: Bool,
        upstream: UpstreamClient
    ) {
        let clientIsModern = session.protocolVersion == ProtocolVersion.modern
        let upstreamIsModern = upstream.modernStamp != nil
        parks =
            clientIsModern && !upstreamIsModern && EraBridge.parkableMethods.contains(method)
            && SessionRelay.capabilities.contains(where: { clientCapabilities[$0] != nil })
        resolvesInputRequired = !clientIsModern
        asksForLogs = clientIsModern
        upstreamCapabilities =
            upstreamIsModern
            ? Gateway.upstreamCapabilities(
                // A 2026-07-28 client is asked through the result; a handshake-era one only on a stream.
                for: clientIsModern || hasStream ? clientCapabilities : [:]
            )
            : nil
        takesRequests = !clientIsModern
    }

    /// Why `method`, asked by the upstream, does not reach a client that takes no requests.
    static func refusal(of method: String) -> JSONRPCError {
        JSONRPCError(
            code: -32603,
            message: "The client speaks MCP 2026-07-28, which takes no requests; \(method) cannot be relayed to it here"
        )
    }
}
