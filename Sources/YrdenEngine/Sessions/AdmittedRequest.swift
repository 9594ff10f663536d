import YrdenProtocol
import YrdenTelemetry
import YrdenTransport

/// A client request registered as in flight in its session, or refused because its id already is.
///
/// Registering is separate from answering so that a transport reading one ordered stream (stdio) can
/// register each request as it reads it: a `notifications/cancelled` read right after the request then
/// finds it, however late the task that answers it starts.
package struct AdmittedRequest: Sendable {
    let request: JSONRPCRequest
    let session: DownstreamSession
    /// Where the client's cancellation lands; `nil` when the request was refused.
    let call: CallHandle?
    /// What the client can do while this request runs: its session's, or (2026-07-28) the request's own.
    let clientCapabilities: JSONObject
    /// The credential the request came with (its `Authorization`), which a `requestState` minted for it is
    /// bound to; `nil` without one.
    let principal: String?
    /// Whom the request acts for: its session's owner, or (2026-07-28) the request's own caller.
    let caller: Caller
    /// A 2026-07-28 request's own log opt-in; a session's request follows its session's level instead.
    let logLevel: LoggingLevel?
    /// The request's SERVER span, parent of what it sends upstream; `nil` when tracing is off.
    var trace: SpanContext?

    /// Registers `request` in `session`; refused when a request with its id is still in flight there.
    init(
        _ request: JSONRPCRequest,
        in session: DownstreamSession,
        clientCapabilities: JSONObject? = nil,
        principal: String? = nil,
        caller: Caller? = nil,
        logLevel: LoggingLevel? = nil
    ) {
        self.request = request
        self.session = session
        self.clientCapabilities = clientCapabilities ?? session.capabilities
        self.principal = principal
        self.caller = caller ?? session.caller
        self.logLevel = logLevel
        let call = CallHandle()
        self.call = session.begin(request.id, handle: call) ? call : nil
    }
}
