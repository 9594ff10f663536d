/// Holds a client's first `initialize` and list requests until every enabled server has finished its first
/// connection attempt, so a client started together with the gateway (a stdio host, an agent launched with
/// it) sees the whole catalog, its capabilities and instructions, instead of an empty list it keeps.
///
/// The gate opens once and stays open: when the last first attempt ends, or at its deadline
/// (`gateway.startupWait` after the gateway started), whichever comes first. A server added later never
/// closes it again. A waiter is a continuation the opening resumes (an event, not a poll); its own timer
/// ends its wait at the deadline, cancelling its task ends it too, and past ``maxWaiters`` a request is
/// answered at once rather than held. The gateway opens the gate, after the merge it put off until then.
final class StartupGate: Sendable {
    /// Requests held at once; beyond this, a request does not wait (bounded memory under a flood).
    static let maxWaiters = 4096

    let deadline: ContinuousClock.Instant
    private let opened = Completion(maxWaiters: StartupGate.maxWaiters)

    init(deadline: ContinuousClock.Instant) {
        self.deadline = deadline
        if deadline <= .now { opened.signal() }
    }

    var isOpen: Bool { opened.isDone }

    /// Opens the gate for good and releases every waiter.
    func open() {
        opened.signal()
    }

    var deadlinePassed: Bool { ContinuousClock.now >= deadline }

    /// Returns once the gate is open, its deadline has passed, or the calling task is cancelled.
    func wait() async {
        guard !isOpen, !deadlinePassed else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.opened.wait() }
            group.addTask { try? await Task.sleep(until: self.deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
    }
}

extension Gateway.Snapshot {
    /// Whether every enabled server has finished its first connection attempt (connected, failed, waiting
    /// for a sign-in, or on its second try): the catalog a new client sees is settled. `/readyz` answers this.
    package var firstAttemptsFinished: Bool {
        links.values.allSatisfy { link in
            switch link.state {
            case .idle: false
            case .connecting(let attempt): attempt > 1
            default: true
            }
        }
    }
}

extension Gateway {
    /// Holds the caller until the first connection attempts are over or `gateway.startupWait` has passed
    /// since the gateway started; returns at once afterwards.
    func awaitStartup() async {
        guard !startup.isOpen else { return }
        if !snapshot.firstAttemptsFinished { await startup.wait() }
        guard snapshot.firstAttemptsFinished || startup.deadlinePassed else { return }  // the waiter was cancelled
        openStartup()
    }

    /// Opens the startup gate once the merge it held back is done, so whoever finds the gate open reads the
    /// whole catalog.
    func openStartup() {
        if snapshot.mergePending { update { _ in } }
        startup.open()
    }
}
