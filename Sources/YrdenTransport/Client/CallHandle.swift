import Synchronization

/// Lets a caller cancel a request it sent upstream from somewhere else (a `notifications/cancelled` that
/// arrives on another HTTP request, or the downstream session ending).
package final class CallHandle: Sendable {
    private let cancelAction = Mutex<(@Sendable (String) -> Void)?>(nil)
    private let cancelledReason = Mutex<String?>(nil)

    package init() {}

    /// Cancels the request: the upstream is told with `notifications/cancelled`, and the caller gets an error.
    package func cancel(reason: String) {
        let action = cancelAction.withLock { $0 }
        cancelledReason.withLock { $0 = $0 ?? reason }
        action?(reason)
    }

    /// Called by the client once the request is on its way; runs `action` at once if already cancelled.
    func bind(_ action: @escaping @Sendable (String) -> Void) {
        cancelAction.withLock { $0 = action }
        if let reason = cancelledReason.withLock({ $0 }) { action(reason) }
    }
}
