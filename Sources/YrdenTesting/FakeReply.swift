import YrdenProtocol

/// How a fake server's handler ends a request.
package enum FakeReply: Sendable {
    /// Answers with this result.
    case result(JSONValue)
    /// Answers with this JSON-RPC error.
    case error(JSONRPCError)
    /// Never answers (a tool that hangs): the gateway's timeout or the client's cancellation must end it.
    case never
}

/// Answers one request a fake server received; it may wait (on the fakes' clock or on the test), send
/// progress and notifications, or crash the server first.
package typealias FakeHandler = @Sendable (FakeCall) async -> FakeReply
