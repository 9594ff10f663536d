/// What the gateway's client of one upstream has to say about it, apart from what the upstream itself writes
/// (a child's stderr, which the channel's log carries): the gateway's own decisions, such as a request of the
/// server it refused or a log message it could not attribute. Kept apart so that they are never shown as if
/// the server had written them.
package struct UpstreamDiagnostics: Sendable {
    /// A remark of the gateway's about the server (a refusal, a message it ignored).
    package var note: @Sendable (String) -> Void
    /// A log message was dropped: several requests in flight asked for logs and it said none of them.
    package var droppedLog: @Sendable () -> Void

    package init(
        note: @escaping @Sendable (String) -> Void,
        droppedLog: @escaping @Sendable () -> Void = {}
    ) {
        self.note = note
        self.droppedLog = droppedLog
    }
}
