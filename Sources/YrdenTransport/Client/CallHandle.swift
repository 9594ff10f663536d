import Synchronization

/// Lets a caller cancel a request it sent upstream from somewhere else (a `notifications/cancelled` that
/// arrives on another HTTP request, or the downstream session ending).
///
/// Cancelling and binding race: the cancel may come before the request is on its way, while it is being
/// bound, or after. One lock over one state decides the order, so whichever comes second runs the action
/// with the reason, and it runs exactly once: the upstream always hears `notifications/cancelled`.
package final class CallHandle: Sendable {
    private enum State {
        case unbound
        case bound(@Sendable (String) -> Void)
        case cancelledBeforeBinding(reason: String)
        case cancelled
    }

    private let state = Mutex(State.unbound)

    package init() {}

    /// Cancels the request: the upstream is told with `notifications/cancelled`, and the caller gets an error.
    /// Only the first cancel counts.
    package func cancel(reason: String) {
        let action = state.withLock { state -> (@Sendable (String) -> Void)? in
            switch state {
            case .unbound:
                state = .cancelledBeforeBinding(reason: reason)
                return nil
            case .bound(let action):
                state = .cancelled
                return action
            case .cancelledBeforeBinding, .cancelled:
                return nil
            }
        }
        action?(reason)
    }

    /// Called by the client once the request is on its way; runs `action` at once if already cancelled.
    func bind(_ action: @escaping @Sendable (String) -> Void) {
        let reason = state.withLock { state -> String? in
            switch state {
            case .unbound:
                state = .bound(action)
                return nil
            case .cancelledBeforeBinding(let reason):
                state = .cancelled
                return reason
            case .bound, .cancelled:
                return nil
            }
        }
        if let reason { action(reason) }
    }
}
