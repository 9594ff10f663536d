import Synchronization
import Testing

@testable import YrdenFront

/// The memo of header verdicts: a value is checked once while it is kept, and what it keeps is bounded.
@Suite struct VerdictMemoTests {
    final class Calls: Sendable {
        let count = Mutex(0)
        func check(_ value: String) -> Bool {
            count.withLock { $0 += 1 }
            return value.hasPrefix("ok")
        }
    }

    @Test func aValueIsCheckedOnceWhileKept() {
        let memo = VerdictMemo(capacity: 4)
        let calls = Calls()
        #expect(memo.verdict(for: "ok-1", calls.check))
        #expect(memo.verdict(for: "ok-1", calls.check))
        #expect(!memo.verdict(for: "no", calls.check))
        #expect(!memo.verdict(for: "no", calls.check))
        #expect(calls.count.withLock { $0 } == 2)
    }

    @Test func aFullMemoStartsOverAndLongValuesAreNeverKept() {
        let memo = VerdictMemo(capacity: 2, maxValueBytes: 8)
        let calls = Calls()
        for value in ["ok-a", "ok-b", "ok-c", "ok-a"] { #expect(memo.verdict(for: value, calls.check)) }
        // ok-c filled the memo past its capacity, so it started over and ok-a was checked again.
        #expect(calls.count.withLock { $0 } == 4)
        let long = "ok-" + String(repeating: "x", count: 20)
        #expect(memo.verdict(for: long, calls.check))
        #expect(memo.verdict(for: long, calls.check))
        #expect(calls.count.withLock { $0 } == 6)
    }
}
