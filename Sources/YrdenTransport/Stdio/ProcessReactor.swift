import CYrdenProcess
import Dispatch
import Synchronization
import YrdenLineIO

#if canImport(Glibc)
import Glibc
#endif

/// The one thread that does all child-process work of the process: it spawns stdio servers, reads their
/// stdout and stderr, finishes writes their stdin could not take at once, notices their exit through a pidfd
/// and reaps them, and reaps the orphaned descendants the process adopts as a child subreaper. It also runs
/// other event sources that gain from sharing it (``drive(_:_:)``): the gateway's HTTP listeners, so that an
/// answer read from a child here is sent from here.
///
/// One thread for all children keeps the thread count flat however many servers run (it was four threads per
/// child); decoding large frames is handed off (``FrameDelivery``). Reaping only here makes it race-free: no exit status an owner waits for can be taken by the orphan
/// sweep. Spawning here matters too: a child's parent-death signal fires when the thread that forked it ends,
/// and this thread lives as long as the process. Handlers run on this thread: they must be quick and never
/// wait for Swift work. Pending jobs are bounded by the children: each has at most a few in flight. A process
/// that starts stdio servers leaves waiting for children to this type: its sweep reaps every exited child that
/// has no owner here.
final class ProcessReactor: Sendable {
    /// Called on the reactor thread with the `EPOLL*` bits that are ready.
    typealias Handler = @Sendable (_ events: UInt32) -> Void
    typealias Job = @Sendable () -> Void

    private struct Timer {
        var deadline: ContinuousClock.Instant
        var job: Job
    }

    /// Another event source run on this thread (an HTTP server without threads of its own).
    private struct Driver {
        var fd: Int32
        var token: UInt64
        var turn: @Sendable () -> Duration?
        var due: ContinuousClock.Instant?
    }

    private struct State {
        var jobs: [Job] = []
        /// Run once this pass has handled its events, before the loop polls or sleeps again.
        var endOfPass: [Job] = []
        /// A few (one per HTTP listener), searched rather than hashed: a mutation through a dictionary's
        /// optional subscript allocates, and these change several times per request.
        var drivers: [Driver] = []
        var handlers: [UInt64: Handler] = [:]
        var nextToken: UInt64 = 1
        var timers: [Timer] = []
        var lagProbes = LoopLagProbes()
    }

    /// How often exited orphans are looked for when no owned child exit prompted a sweep.
    static let sweepInterval: Duration = .seconds(1)
    private static let wakeToken: UInt64 = 0
    /// After a pass that handled events, the loop polls this long before it sleeps: what answers the work just
    /// done (a child's reply, a client's next request) usually comes within it, and a loop found awake spares
    /// both sides a wake-up, which on a virtual machine costs tens of µs each. Only after work, so an idle
    /// process sleeps; none with one usable CPU, where polling would take the time the peer needs to answer.
    static let pollBeforeSleep: Duration = yrden_usable_cpus() > 1 ? .microseconds(50) : .zero

    private let epollFD: Int32
    private let wakeFD: Int32
    private let state = Mutex(State())
    private let loopThread = Atomic<UInt>(0)
    /// Children whose owners reap them, by pid: the orphan sweep hands these to their owner.
    let owners = Mutex<[pid_t: Job]>([:])

    private static let current = Mutex<ProcessReactor?>(nil)

    /// The process's reactor, started on first use. Starting it makes the process a child subreaper, so
    /// descendants that outlive the server that started them are reaped here rather than left to init.
    static func running() throws(UpstreamError) -> ProcessReactor {
        try current.withLock { (current: inout ProcessReactor?) throws(UpstreamError) -> ProcessReactor in
            if let current { return current }
            let reactor = try ProcessReactor()
            current = reactor
            return reactor
        }
    }

    /// The process's reactor if one was started; never starts one.
    static func runningIfStarted() -> ProcessReactor? {
        current.withLock { $0 }
    }

    private init() throws(UpstreamError) {
        epollFD = yrden_epoll_create()
        wakeFD = yrden_eventfd()
        guard epollFD >= 0, wakeFD >= 0,
            yrden_epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, EPOLLIN.rawValue, Self.wakeToken) == 0
        else {
            let reason = String(cString: strerror(errno))
            for fd in [epollFD, wakeFD] where fd >= 0 { _ = close(fd) }
            throw UpstreamError(.process, "cannot watch child processes: \(reason)")
        }
        do {
            try DetachedThread.start(name: "yrden-reactor", stackBytes: 4 << 20) { [self] in loop() }
        } catch {
            for fd in [epollFD, wakeFD] { _ = close(fd) }
            throw UpstreamError(.process, error.description)
        }
        _ = yrden_become_child_subreaper()
        Self.endChildrenWhenTheProcessExits()
        after(Self.sweepInterval) { [self] in periodicSweep() }
    }

    var isCurrentThread: Bool { loopThread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Runs `job` on the reactor thread, after the jobs queued before it.
    func perform(_ job: @escaping Job) {
        state.withLock { $0.jobs.append(job) }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Runs `body` on the reactor thread and returns its result; inline when already there.
    func performAndWait<Value: Sendable>(_ body: @escaping @Sendable () -> Value) -> Value {
        if isCurrentThread { return body() }
        let result = Mutex<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
        perform {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Runs `job` once the current pass has handled its events, before the loop waits again: work the pass's
    /// events each add to (frames for one child) is then done once. Reactor thread only.
    func atEndOfPass(_ job: @escaping Job) {
        state.withLock { $0.endOfPass.append(job) }
    }

    /// Runs `job` on the reactor thread once `delay` has passed.
    func after(_ delay: Duration, _ job: @escaping Job) {
        let deadline = ContinuousClock.now + delay
        state.withLock { $0.timers.append(Timer(deadline: deadline, job: job)) }
        if !isCurrentThread {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// Starts watching `fd` for `events`; returns the token to change or end the watch with, or `nil` with
    /// errno set. Reactor thread only.
    func watch(_ fd: Int32, events: UInt32, _ handler: @escaping Handler) -> UInt64? {
        let token = state.withLock { state in
            defer { state.nextToken += 1 }
            state.handlers[state.nextToken] = handler
            return state.nextToken
        }
        guard yrden_epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, events, token) == 0 else {
            _ = state.withLock { $0.handlers.removeValue(forKey: token) }
            return nil
        }
        return token
    }

    /// Changes what a watch waits for (re-arms a one-shot watch). Reactor thread only.
    func rearm(_ token: UInt64, fd: Int32, events: UInt32) {
        _ = yrden_epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, events, token)
    }

    /// Ends a watch; events already collected for it are dropped. Call before closing `fd`. Reactor thread only.
    func unwatch(_ token: UInt64, fd: Int32) {
        _ = yrden_epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, 0, token)
        _ = state.withLock { $0.handlers.removeValue(forKey: token) }
    }

    /// Calls `turn` on this thread whenever `fd` is readable and once the delay it last returned has passed
    /// (`nil`: only when readable). Any thread; returns once the watch is in place.
    func drive(_ fd: Int32, _ turn: @escaping @Sendable () -> Duration?) throws(UpstreamError) {
        let failure: String? = performAndWait { [self] in
            guard let token = watch(fd, events: EPOLLIN.rawValue, { [self] _ in runDriver(fd) }) else {
                return String(cString: strerror(errno))
            }
            // A first run at once: whatever became ready before the watch is not missed.
            state.withLock { state in
                state.drivers.removeAll { $0.fd == fd }
                state.drivers.append(Driver(fd: fd, token: token, turn: turn, due: .now))
            }
            return nil
        }
        if let failure { throw UpstreamError(.process, "cannot watch descriptor \(fd): \(failure)") }
    }

    /// Ends the drive of `fd`, then runs `last` on this thread; returns once it has run. Any thread.
    func stopDriving(_ fd: Int32, then last: @escaping @Sendable () -> Void) {
        performAndWait { [self] in
            let driver = state.withLock { state in
                state.drivers.firstIndex { $0.fd == fd }.map { state.drivers.remove(at: $0) }
            }
            if let driver { unwatch(driver.token, fd: fd) }
            last()
        }
    }

    /// Has the drive of `fd` (every drive for a negative one) run soon: at the end of this pass on this thread,
    /// else right after waking the loop.
    func wakeDriver(_ fd: Int32) {
        state.withLock { state in
            let now = ContinuousClock.now
            for index in state.drivers.indices where fd < 0 || state.drivers[index].fd == fd {
                state.drivers[index].due = now
            }
        }
        if !isCurrentThread {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// Calls `record` on this thread about every `interval` with how late the loop ran a tick it set for then:
    /// time spent by whatever ran on the loop in between (a handler, a job, a driver's turn) shows up here. The
    /// next tick is set from the moment this one ran, so a stall is one late tick, not a burst of catching up.
    /// `record` runs on the loop: it must be quick and allocate nothing. Any thread; the token ends it.
    func measureLag(every interval: Duration, _ record: @escaping @Sendable (Duration) -> Void) -> UInt64 {
        let token = state.withLock { state in
            defer { state.nextToken += 1 }
            state.lagProbes.add(token: state.nextToken, every: interval, record)
            return state.nextToken
        }
        if !isCurrentThread {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
        return token
    }

    /// Ends the ticks of ``measureLag(every:_:)``'s `token`. Any thread; a tick already taken may still report.
    func stopMeasuringLag(_ token: UInt64) {
        state.withLock { $0.lagProbes.remove(token) }
    }

    /// Reports every lag probe that is due, one at a time and outside the lock, re-arming it from now.
    private func runDueLagProbes() {
        var index = 0
        while true {
            // Taken out through captured variables, as in `runDriver`: nothing here may allocate.
            var record: (@Sendable (Duration) -> Void)?
            var lag: Duration = .zero
            state.withLock { state in
                guard let due = state.lagProbes.takeDue(from: &index, now: .now) else { return }
                (record, lag) = due
            }
            guard let record else { return }
            record(lag)
        }
    }

    private func runDriver(_ fd: Int32) {
        // Taken out through a captured variable, not returned: a closure returned through the lock's generic
        // result is re-wrapped on the way out and back, two allocations on every turn of the loop.
        var found: (@Sendable () -> Duration?)?
        state.withLock { state in
            guard let index = state.drivers.firstIndex(where: { $0.fd == fd }) else { return }
            state.drivers[index].due = nil
            found = state.drivers[index].turn
        }
        guard let turn = found else { return }
        let next = turn().map { ContinuousClock.now + $0 }
        state.withLock { state in
            guard let index = state.drivers.firstIndex(where: { $0.fd == fd }) else { return }
            // A wake during the turn (a connection resumed by its own callback) keeps its earlier time.
            let woken = state.drivers[index].due
            state.drivers[index].due = woken.map { woken in next.map { min($0, woken) } ?? woken } ?? next
        }
    }

    private func runDueDrivers() {
        let now = ContinuousClock.now
        let due = state.withLock { state in
            state.drivers.compactMap { $0.due.map { $0 <= now } == true ? $0.fd : nil }
        }
        due.forEach(runDriver)
    }

    private func loop() {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        let capacity = 64
        var tokens = [UInt64](repeating: 0, count: capacity)
        var events = [UInt32](repeating: 0, count: capacity)
        var handledEvents = false
        while true {
            var count: Int32 = 0
            var timeout = nextTimeoutMilliseconds()
            if handledEvents && timeout != 0 && Self.pollBeforeSleep > .zero {
                count = pollBriefly(&tokens, &events)
                if count <= 0 { timeout = nextTimeoutMilliseconds() }
            }
            if count <= 0 { count = yrden_epoll_wait(epollFD, &tokens, &events, Int32(capacity), timeout) }
            handledEvents = count > 0
            if count < 0 {
                if errno != EINTR { usleep(10_000) }  // never spin on an unexpected error
                continue
            }
            for index in 0..<Int(count) {
                if tokens[index] == Self.wakeToken {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, 8)
                } else if let handler = state.withLock({ $0.handlers[tokens[index]] }) {
                    handler(events[index])
                }
            }
            runAll { $0.jobs.takeAll() }
            runDueTimers()
            runDueLagProbes()
            runDueDrivers()
            runAll { $0.endOfPass.takeAll() }
        }
    }

    /// Polls without sleeping for up to ``pollBeforeSleep``; the count of ready events, 0 when none came.
    private func pollBriefly(_ tokens: inout [UInt64], _ events: inout [UInt32]) -> Int32 {
        let until = ContinuousClock.now + Self.pollBeforeSleep
        repeat {
            let count = yrden_epoll_wait(epollFD, &tokens, &events, Int32(tokens.count), 0)
            if count != 0 { return count }
        } while ContinuousClock.now < until
        return 0
    }

    /// Runs the jobs `take` removes from the state until it finds none: a job may add more.
    private func runAll(_ take: (inout State) -> [Job]) {
        while true {
            let jobs = state.withLock { take(&$0) }
            if jobs.isEmpty { return }
            jobs.forEach { $0() }
        }
    }

    private func runDueTimers() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [Job] in
            let due = state.timers.filter { $0.deadline <= now }.map(\.job)
            state.timers.removeAll { $0.deadline <= now }
            return due
        }
        due.forEach { $0() }
    }

    /// Until the next timer or driver run, at most one sweep interval; 0 when jobs are waiting.
    private func nextTimeoutMilliseconds() -> Int32 {
        let next = state.withLock { state -> ContinuousClock.Instant? in
            guard state.jobs.isEmpty else { return .now }
            var next = state.timers.lazy.map(\.deadline).min()
            if let due = state.lagProbes.nextDue, next.map({ due < $0 }) ?? true { next = due }
            for due in state.drivers.lazy.compactMap(\.due) where next.map({ due < $0 }) ?? true { next = due }
            return next
        }
        guard let next else { return 1000 }
        let wait = next - .now
        if wait <= .zero { return 0 }
        let (seconds, attoseconds) = wait.components
        return Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 1000))
    }
}

extension Array {
    /// The elements, leaving the array empty without copying them.
    fileprivate mutating func takeAll() -> [Element] {
        var taken: [Element] = []
        swap(&taken, &self)
        return taken
    }
}
