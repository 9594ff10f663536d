import Synchronization
import YrdenProtocol

/// One accepted call of the `slow` tool, waiting for or under way in ``DemoServerCore/runSlowCalls()``.
struct SlowCall: Sendable {
    static let maxSeconds = 60
    static let maxSteps = 1000

    var id: JSONRPCID
    /// The caller's `params._meta.progressToken`; without one, no progress is sent.
    var progressToken: JSONValue?
    var seconds: Double
    var steps: Int
    /// Finishes when `notifications/cancelled` names this call.
    var cancellation: AsyncStream<Never>

    /// The final text, "done after 0.3 s" or "done after 3 s".
    var doneText: String {
        let rounded = seconds.rounded()
        let shown = rounded == seconds && abs(seconds) < 1e15 ? String(Int(rounded)) : String(seconds)
        return "done after \(shown) s"
    }
}

/// The `slow` calls that have been accepted and not yet answered or cancelled, keyed by request id.
///
/// Everything that must not race with a cancellation (a progress notification, the final response) is
/// emitted while holding the lock, so once ``cancel(_:)`` returns, the call sends nothing more.
final class SlowCallRegistry: Sendable {
    private let running = Mutex<[JSONRPCID: AsyncStream<Never>.Continuation]>([:])

    /// Registers a call and returns its cancellation signal, or `nil` if the id is already running.
    func register(_ id: JSONRPCID) -> AsyncStream<Never>? {
        let (signal, trigger) = AsyncStream.makeStream(of: Never.self)
        let added = running.withLock { calls in
            guard calls[id] == nil else { return false }
            calls[id] = trigger
            return true
        }
        return added ? signal : nil
    }

    func cancel(_ id: JSONRPCID) {
        running.withLock { calls in calls.removeValue(forKey: id)?.finish() }
    }

    /// Forgets a call that stopped without answering.
    func remove(_ id: JSONRPCID) {
        running.withLock { calls in _ = calls.removeValue(forKey: id) }
    }

    /// Runs `body` only while the call is still running; returns whether it ran.
    func whileRunning(_ id: JSONRPCID, _ body: () -> Void) -> Bool {
        running.withLock { calls in
            guard calls[id] != nil else { return false }
            body()
            return true
        }
    }

    /// Ends the call and runs `body` (which sends the response) unless it was cancelled first.
    func complete(_ id: JSONRPCID, _ body: () -> Void) {
        running.withLock { calls in
            guard calls.removeValue(forKey: id) != nil else { return }
            body()
        }
    }

    var count: Int { running.withLock { $0.count } }
}

extension DemoServerCore {
    /// Validates a `slow` call, registers it and queues it. Its response comes later through `emit`.
    func startSlowCall(_ request: JSONRPCRequest, _ arguments: Arguments) throws(JSONRPCError) -> Answer {
        let secondsValue = try arguments.number("seconds") ?? 3
        let seconds = secondsValue.doubleValue ?? 3
        try arguments.check("seconds", seconds, in: 0...Double(SlowCall.maxSeconds))
        let steps = try arguments.integer("steps") ?? 10
        try arguments.check("steps", steps, in: 1...SlowCall.maxSteps)
        var token = request.params?["_meta"]?["progressToken"]
        if let candidate = token, JSONRPCID(candidate) == nil { token = nil }
        guard let cancellation = slowCalls.register(request.id) else {
            throw .invalidRequest("request id \(request.id) is already in use by a running call")
        }
        enqueue(
            SlowCall(id: request.id, progressToken: token, seconds: seconds, steps: steps, cancellation: cancellation)
        )
        return .deferred
    }

    /// Runs the steps against the cancellation signal; answers only if the steps won.
    func perform(_ call: SlowCall) async {
        let completed = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.runSteps(of: call) }
            group.addTask {
                for await _ in call.cancellation {}
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard completed, !Task.isCancelled else {
            slowCalls.remove(call.id)
            return
        }
        let response = JSONRPCResponse(id: call.id, result: ["content": Self.textContent(call.doneText)])
        slowCalls.complete(call.id) { emit(response.message) }
    }

    /// Sleeps `seconds` in `steps` equal parts, sending progress after each. Returns `false` when stopped.
    private func runSteps(of call: SlowCall) async -> Bool {
        let clock = ContinuousClock()
        let start = clock.now
        let step = Duration.seconds(call.seconds / Double(call.steps))
        for index in 1...call.steps {
            do {
                try await clock.sleep(until: start + step * index)
            } catch {
                return false
            }
            guard let token = call.progressToken else { continue }
            let progress = JSONRPCNotification(
                method: MCPMethod.progress,
                params: [
                    "progressToken": token, "progress": .int(index), "total": .int(call.steps),
                    "message": .string("step \(index) of \(call.steps)"),
                ]
            )
            guard slowCalls.whileRunning(call.id, { emit(progress.message) }) else { return false }
        }
        return true
    }
}
