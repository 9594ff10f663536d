import Synchronization

/// What the gateway's client of one upstream has to say about it, apart from what the upstream itself writes
/// (a child's stderr, which the channel's log carries): the gateway's own decisions, such as a request of the
/// server it refused or a log message it could not attribute. Kept apart so that they are never shown as if
/// the server had written them.
package struct UpstreamDiagnostics: Sendable {
    /// A remark of the gateway's about the server (a refusal, a message it ignored).
    package var note: @Sendable (String) -> Void
    /// A log message was dropped: several requests in flight asked for logs and it said none of them.
    package var droppedLog: @Sendable () -> Void

    /// Remarks the server can cause at will (its requests refused, its lines ignored) so far, so that a flood
    /// of them is not a flood of log lines.
    private let repeated = RepeatedRemarks()

    package init(
        note: @escaping @Sendable (String) -> Void,
        droppedLog: @escaping @Sendable () -> Void = {}
    ) {
        self.note = note
        self.droppedLog = droppedLog
    }

    /// Notes a remark the server can cause at will: the first ``RepeatedRemarks/noted`` each, then only at
    /// every power of two, with the count.
    func noteBounded(_ remark: String) {
        let count = repeated.count.wrappingAdd(1, ordering: .relaxed).newValue
        if count <= RepeatedRemarks.noted {
            note(remark)
        } else if count & (count - 1) == 0 {
            note("\(remark) (\(count) such remarks about the server so far; not every one is logged)")
        }
    }
}

/// How many remarks the server caused.
private final class RepeatedRemarks: Sendable {
    /// Remarks logged one by one before only powers of two are.
    static let noted = 16
    let count = Atomic<Int>(0)
}
