import Synchronization
import Testing

@testable import YrdenFront

/// A batch's members run a few at a time, and their answers keep the members' order.
@Suite struct BoundedFanOutTests {
    /// Counts how many pieces of work run at once, and the most there ever were.
    final class Concurrency: Sendable {
        private let counts = Mutex((running: 0, most: 0))
        var most: Int { counts.withLock { $0.most } }

        func enter() {
            counts.withLock {
                $0.running += 1
                $0.most = max($0.most, $0.running)
            }
        }

        func leave() { counts.withLock { $0.running -= 1 } }
    }

    @Test func neverMoreThanTheWidthRunAndResultsKeepTheirOrder() async {
        let concurrency = Concurrency()
        let results = await BoundedFanOut.map(count: 500, width: 8) { index in
            concurrency.enter()
            defer { concurrency.leave() }
            for _ in 0..<(index % 5) { await Task.yield() }
            return index * 2
        }
        #expect(results == (0..<500).map { $0 * 2 })
        #expect(concurrency.most <= 8)
        #expect(concurrency.most > 1, "work should overlap up to the width")
    }

    @Test func emptyAndNarrowFanOuts() async {
        #expect(await BoundedFanOut.map(count: 0, width: 4) { $0 } == [])
        #expect(await BoundedFanOut.map(count: 3, width: 0) { $0 } == [0, 1, 2])
    }
}
