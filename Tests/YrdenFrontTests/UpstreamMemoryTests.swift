import Testing
import YrdenEngine
import YrdenTransport

@testable import YrdenFront

@Suite struct UpstreamMemoryTests {
    private let refused = UpstreamError(.network, "connection refused")

    @Test func aFailureIsKeptWhileTheNextAttemptRuns() {
        let memory = UpstreamMemory()
        #expect(memory.lastError("a", now: .connecting(attempt: 1)) == nil)
        memory.note("a", .failed(refused, attempt: 1, retryAt: .now + .seconds(1)))
        #expect(memory.lastError("a", now: .connecting(attempt: 2)) == refused)
        #expect(memory.lastError("a", now: .disconnected) == refused)
        #expect(memory.lastError("b", now: .connecting(attempt: 2)) == nil)
    }

    @Test func theCurrentFailureWinsAndAConnectionClearsIt() {
        let memory = UpstreamMemory()
        memory.note("a", .failed(refused, attempt: 1, retryAt: nil))
        let timeout = UpstreamError(.timeout, "no answer to initialize")
        #expect(memory.lastError("a", now: .failed(timeout, attempt: 2, retryAt: nil)) == timeout)
        #expect(memory.lastError("a", now: .connected(since: .now)) == nil)
        memory.note("a", .connected(since: .now))
        #expect(memory.lastError("a", now: .connecting(attempt: 1)) == nil)
    }

    @Test func aRemovedServerIsForgotten() {
        let memory = UpstreamMemory()
        memory.note("a", .failed(refused, attempt: 1, retryAt: nil))
        memory.forget("a")
        #expect(memory.lastError("a", now: .idle) == nil)
        #expect(memory.remembered("a") == nil)
    }
}
