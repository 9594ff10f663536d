/// Runs `operation`, giving up after `limit` of real time: `nil` then, and the operation is cancelled.
///
/// For awaiting what the code under test should finish promptly (an answer, a failure): the limit only
/// matters when it is broken, and then the test fails instead of hanging.
package func withDeadline<Value: Sendable>(
    _ limit: Duration = .seconds(10),
    _ operation: @escaping @Sendable () async -> Value
) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
