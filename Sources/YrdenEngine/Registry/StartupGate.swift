import Synchronization
import YrdenConfig
import YrdenTransport

/// Holds a client's first `initialize` and list requests until every enabled server has finished its first
/// connection attempt, so a client started together with the gateway (a stdio host, an agent launched with
/// it) sees the whole catalog, its capabilities and instructions, instead of an empty list it keeps.
///
/// The gate opens once and stays open: when the last first attempt ends, or when the bound is reached,
/// whichever comes first (see ``StartupBound``). A server added later never closes it again. A waiter is a
/// continuation the opening resumes (an event, not a poll); its own timer ends its wait at the next bound
/// (the deadline, or a server's own), cancelling its task ends it too, and past ``maxWaiters`` a request is
/// answered at once rather than held. The gateway's writer opens the gate, after the merge it put off until
/// then, so no request's handler runs that merge.
final class StartupGate: Sendable {
    /// Requests held at once; beyond this, a request does not wait (bounded memory under a flood).
    static let maxWaiters = 4096

    /// The gate opens by then whatever happens.
    let deadline: ContinuousClock.Instant
    /// With ``StartupBound/eachServersConnectTimeout``: when each server stops holding the gate (the gateway's
    /// start plus its connect timeout); empty when ``deadline`` bounds every server alike.
    let serverDeadlines: [String: ContinuousClock.Instant]
    private let opened = Completion(maxWaiters: StartupGate.maxWaiters)

    /// The gateway's clock, which the deadlines are instants of.
    let time: any TimeSource

    init(
        deadline: ContinuousClock.Instant,
        serverDeadlines: [String: ContinuousClock.Instant] = [:],
        time: any TimeSource = .system
    ) {
        self.deadline = deadline
        self.serverDeadlines = serverDeadlines
        self.time = time
        if deadline <= time.now { opened.signal() }
    }

    /// The gate for `servers`, bounded as `bound` says, counted from `startedAt`.
    convenience init(
        _ bound: StartupBound,
        time: any TimeSource = .system,
        startedAt: ContinuousClock.Instant,
        startupWait: Duration,
        servers: [ServerSpec]
    ) {
        switch bound {
        case .startupWait:
            self.init(deadline: startedAt + startupWait, time: time)
        case .eachServersConnectTimeout:
            var deadlines: [String: ContinuousClock.Instant] = [:]
            for spec in servers where !spec.disabled { deadlines[spec.id] = startedAt + spec.timeouts.connect }
            self.init(deadline: deadlines.values.max() ?? startedAt, serverDeadlines: deadlines, time: time)
        }
    }

    var isOpen: Bool { opened.isDone }

    /// Opens the gate for good and releases every waiter.
    func open() {
        opened.signal()
    }

    var deadlinePassed: Bool { time.now >= deadline }

    /// Whether `snapshot` lets the gate open: every enabled server has finished its first attempt, or is
    /// past its own bound.
    func settles(_ snapshot: ServerRegistry.Snapshot, now: ContinuousClock.Instant? = nil) -> Bool {
        let now = now ?? time.now
        return snapshot.links.allSatisfy { id, link in
            link.finishedFirstAttempt || serverDeadlines[id].map { $0 <= now } == true
        }
    }

    /// When a waiter must look again: the earliest bound of a server still in its first attempt, else the
    /// deadline.
    func nextBound(_ snapshot: ServerRegistry.Snapshot, now: ContinuousClock.Instant? = nil) -> ContinuousClock.Instant
    {
        let now = now ?? time.now
        var next = deadline
        for (id, link) in snapshot.links where !link.finishedFirstAttempt {
            if let bound = serverDeadlines[id], bound > now, bound < next { next = bound }
        }
        return next
    }

    /// Returns once the gate is open (or past ``maxWaiters``, at once), whatever the deadline: for a request
    /// whose wait is over while the writer merges what the gate held back.
    func waitUntilOpen() async {
        await opened.wait()
    }

    /// Returns once the gate is open, `until` (at the latest the deadline) has passed, or the calling task is
    /// cancelled.
    func wait(until: ContinuousClock.Instant? = nil) async {
        let until = min(until ?? deadline, deadline)
        guard !isOpen, time.now < until else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.opened.wait() }
            group.addTask { try? await self.time.sleep(until: until) }
            await group.next()
            group.cancelAll()
        }
    }
}

/// How long the startup gate holds the first requests for a server's first connection attempt.
package enum StartupBound: Sendable {
    /// `gateway.startupWait` after the gateway started, for every server alike (`yrden serve`, and
    /// `yrden stdio` when the config sets `startupWait`).
    case startupWait
    /// Each server's own `timeouts.connect` after the gateway started (`yrden stdio` by default): a stdio host
    /// lists once, right away, and keeps that list, so a server that is slow to start but within its connect
    /// timeout must be in it.
    case eachServersConnectTimeout
}

extension ServerRegistry.Snapshot {
    /// Whether every enabled server has finished its first connection attempt (connected, failed, waiting
    /// for a sign-in, or on its second try): the catalog a new client sees is settled. `/readyz` answers this.
    package var firstAttemptsFinished: Bool {
        links.values.allSatisfy(\.finishedFirstAttempt)
    }
}

extension ServerLink {
    /// Whether the server's first connection attempt is over (connected, failed, waiting for a sign-in, on its
    /// second try, or disabled).
    var finishedFirstAttempt: Bool {
        switch state {
        case .idle: false
        case .connecting(let attempt): attempt > 1
        default: true
        }
    }
}
