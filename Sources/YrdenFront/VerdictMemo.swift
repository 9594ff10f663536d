import Synchronization

/// Remembers the verdicts of a pure check on a header value.
///
/// A client sends the same `Host` and `Accept` on every request, and parsing them was a measurable share of a
/// call's CPU; a lookup is not. The memo is bounded: values longer than `maxValueBytes` are never kept, and
/// once `capacity` verdicts are held the memo starts over, so a client varying its headers costs at most a
/// re-parse.
final class VerdictMemo: Sendable {
    let capacity: Int
    let maxValueBytes: Int
    private let verdicts = Mutex<[String: Bool]>([:])

    init(capacity: Int = 64, maxValueBytes: Int = 256) {
        self.capacity = capacity
        self.maxValueBytes = maxValueBytes
    }

    /// `check(value)`, computed once per distinct value while it stays in the memo.
    func verdict(for value: String, _ check: (String) -> Bool) -> Bool {
        guard value.utf8.count <= maxValueBytes else { return check(value) }
        if let known = verdicts.withLock({ $0[value] }) { return known }
        let verdict = check(value)
        verdicts.withLock { verdicts in
            if verdicts.count >= capacity { verdicts.removeAll(keepingCapacity: true) }
            verdicts[value] = verdict
        }
        return verdict
    }
}
