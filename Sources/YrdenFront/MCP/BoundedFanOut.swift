/// Runs many pieces of work with only a few at a time, keeping each result at its index.
///
/// A batch's members are served this way: a batch of a thousand calls starts the next call only when one
/// finishes, so it holds a fixed number of upstream calls (and their buffers) at once instead of all of them.
enum BoundedFanOut {
    /// `work(0) … work(count - 1)`, at most `width` running at once; results in index order.
    static func map<Result: Sendable>(
        count: Int,
        width: Int,
        _ work: @escaping @Sendable (Int) async -> Result
    ) async -> [Result] {
        guard count > 0 else { return [] }
        return await withTaskGroup(of: (Int, Result).self) { group in
            var results = [Result?](repeating: nil, count: count)
            var started = 0
            while started < min(max(width, 1), count) {
                let index = started
                group.addTask { (index, await work(index)) }
                started += 1
            }
            while let (index, result) = await group.next() {
                results[index] = result
                guard started < count else { continue }
                let next = started
                group.addTask { (next, await work(next)) }
                started += 1
            }
            // Every index finished before the group ran dry, so nothing is dropped here.
            return results.compactMap { $0 }
        }
    }
}
