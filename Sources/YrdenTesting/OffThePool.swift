import Dispatch

/// One thread of its own for tests' heavy synchronous work, taken in turn.
///
/// Swift Testing runs every test at once on the cooperative pool, which has one thread per core (two on CI):
/// a test body that computes for seconds, or blocks, holds a pool thread that long, and every other test's
/// next step (a fake upstream's handshake, a gateway's writer pass) waits behind it, so their waits on
/// `connected` ran out under load. Here such work shares the cores with the pool by the kernel's time slices
/// instead of holding a pool thread, and heavy tests queue behind each other, not the whole suite behind them.
private let heavyWork = DispatchQueue(label: "yrden.tests.heavy-work")

/// Runs `body` on the heavy-work thread and returns its result. Expectations belong after it, on the task:
/// Swift Testing attributes an issue to the test whose task records it.
package func offThePool<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        heavyWork.async { continuation.resume(returning: body()) }
    }
}

/// ``offThePool(_:)`` for a body that throws.
package func offThePool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        heavyWork.async { continuation.resume(with: Result { try body() }) }
    }
}
