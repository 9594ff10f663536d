import Synchronization

/// Things that happened, in order, written from any thread (a channel's reader, a relay sink, a task), and
/// awaited by tests: a test waits for the event it expects instead of sleeping and hoping it came.
///
/// Waits have a real-time limit that only matters when the code under test is broken: they return as soon
/// as the event is there, and `nil` after the limit, so a failing test fails instead of hanging.
package final class Recording<Element: Sendable>: Sendable {
    private struct Waiter {
        var matches: @Sendable (Element) -> Bool
        var wake: CheckedContinuation<Element?, Never>
    }

    private struct State {
        var elements: [Element] = []
        var waiters: [UInt64: Waiter] = [:]
        var lastID: UInt64 = 0
        /// Waits whose limit passed before they were registered.
        var expired: Set<UInt64> = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Everything recorded so far, oldest first.
    package var elements: [Element] { state.withLock { $0.elements } }

    package func append(_ element: Element) {
        let woken = state.withLock { state -> [CheckedContinuation<Element?, Never>] in
            state.elements.append(element)
            let matched = state.waiters.filter { $0.value.matches(element) }
            for id in matched.keys { state.waiters.removeValue(forKey: id) }
            return matched.values.map(\.wake)
        }
        woken.forEach { $0.resume(returning: element) }
    }

    /// The first element recorded (already, or from now on) that `matches`; `nil` when none is within `limit`.
    package func first(
        within limit: Duration = .seconds(10),
        where matches: @escaping @Sendable (Element) -> Bool
    ) async -> Element? {
        let id = state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            let waiter = state.withLock { state -> Waiter? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                state.expired.insert(id)
                return nil
            }
            waiter?.wake.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
            let found = state.withLock { state -> Element?? in
                if state.expired.remove(id) != nil { return .some(nil) }
                if let found = state.elements.first(where: matches) { return .some(found) }
                state.waiters[id] = Waiter(matches: matches, wake: continuation)
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// `true` once at least `count` elements that match are recorded; `false` when not within `limit`.
    package func count(
        atLeast count: Int,
        within limit: Duration = .seconds(10),
        where matches: @escaping @Sendable (Element) -> Bool = { _ in true }
    ) async -> Bool {
        let seen = Tally()
        let counted = await first(within: limit) { element in
            matches(element) && seen.next() >= count
        }
        return counted != nil || count <= 0
    }
}

/// Counts the matches one wait has seen (its predicate runs once per element).
private final class Tally: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}

extension Recording {
    /// A recording of everything `stream` yields, for as long as it does (a session's notification stream).
    package static func following(_ stream: AsyncStream<Element>) -> Recording<Element> {
        let recording = Recording()
        Task {
            for await element in stream { recording.append(element) }
        }
        return recording
    }
}
