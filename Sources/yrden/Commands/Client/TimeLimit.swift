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

extension TimeLimit {
    /// Runs `body` with a progress line for server `id`, for at most `limit`; when the time runs out, fails
    /// with "`id` `unfinished` within N s" and the last progress shown.
    static func withProgress<Result: Sendable>(
        _ id: String,
        limit: Duration,
        unfinished: String,
        _ body: @escaping @Sendable (ProgressLine) async throws -> Result
    ) async throws -> Result {
        let progress = ProgressLine(label: id)
        defer { progress.clear() }
        guard let result = try await run(limit, { try await body(progress) }) else {
            let last = progress.lastText.map { "; last: " + $0.trimmingSuffix("…") } ?? ""
            throw ClientFailure("\(id) \(unfinished) within \(limit.components.seconds) s\(last)")
        }
        return result
    }
}
