/// Runs work that waits on the gateway for at most a given time.
enum TimeLimit {
    /// What `body` returned, or `nil` when `limit` passed first (`body` is then cancelled).
    static func run<Result: Sendable>(
        _ limit: Duration,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result? {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}
