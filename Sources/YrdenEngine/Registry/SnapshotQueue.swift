import Synchronization

/// The changes to the gateway's snapshot waiting for its one writer, and whose turn it is to write.
///
/// One pass runs at a time: the change that finds no pass running starts one (``offer(_:)`` says so), and that
/// pass takes the whole queue again and again until it finds it empty. Passes run off the callers' threads,
/// so a caller on the event loop only queues its change and suspends until it is applied and announced.
///
/// At most ``capacity`` changes wait; a caller finding the queue full suspends (``room()``) until the pass
/// takes it. Callers are connections publishing their states (one change each at a time) and operators'
/// changes, so the queue rarely holds more than a few dozen.
final class SnapshotQueue: Sendable {
    /// Changes waiting at once; a pass applies them together.
    static let capacity = 1024

    enum Offer {
        /// Queued; the pass running takes it.
        case queued
        /// Queued, and no pass runs: the caller starts one.
        case startPass
        /// The queue is full: wait for ``room()`` and offer it again.
        case full
    }

    private struct State {
        var changes: [QueuedChange] = []
        var passRunning = false
        var waitingForRoom: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Queues `change` unless the queue is full. `evenIfFull` queues it all the same, for the rare caller that
    /// cannot wait (a sign-in reporting its progress from a callback).
    func offer(_ change: QueuedChange, evenIfFull: Bool = false) -> Offer {
        state.withLock { state in
            guard evenIfFull || state.changes.count < Self.capacity else { return .full }
            state.changes.append(change)
            guard !state.passRunning else { return .queued }
            state.passRunning = true
            return .startPass
        }
    }

    /// Returns once the queue has room (at once if it has).
    func room() async {
        await withCheckedContinuation { continuation in
            let hasRoom = state.withLock { state in
                guard state.changes.count >= Self.capacity else { return true }
                state.waitingForRoom.append(continuation)
                return false
            }
            if hasRoom { continuation.resume() }
        }
    }

    /// Every change waiting, in the order offered, for the running pass; `nil` when none is, which ends the
    /// pass (the next offer starts another).
    func take() -> [QueuedChange]? {
        let (batch, waiting) = state.withLock { state -> ([QueuedChange], [CheckedContinuation<Void, Never>]) in
            defer {
                state.changes.removeAll()
                state.waitingForRoom.removeAll()
            }
            if state.changes.isEmpty { state.passRunning = false }
            return (state.changes, state.waitingForRoom)
        }
        waiting.forEach { $0.resume() }
        return batch.isEmpty ? nil : batch
    }
}

/// A change to the snapshot waiting for the writer. Applying it returns how to hand its caller the result,
/// which the pass does once it has announced the change.
struct QueuedChange: Sendable {
    let apply: @Sendable (inout ServerRegistry.Snapshot) -> @Sendable () -> Void
}

/// The result of a queued change, handed from the writer's pass to the caller waiting for it.
final class ChangeResult<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiter: CheckedContinuation<Value, Never>?
    }

    private let state = Mutex(State())

    /// Keeps `value` for the caller, resuming it if it waits already. Called once.
    func deliver(_ value: Value) {
        let waiter = state.withLock { state in
            defer { state.waiter = nil }
            if state.waiter == nil { state.value = value }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }

    /// The value, once delivered. Not cancellable: a change once queued is applied, and its caller hears so.
    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Value? in
                if let value = state.value { return value }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
