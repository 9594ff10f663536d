import Synchronization
import Testing
import YrdenProtocol

@testable import YrdenFront

/// A request's progress relay holds a bounded number of messages for a slow client, and the response always
/// arrives, last.
@Suite struct RelatedMessageRelayTests {
    /// What a client read, and a gate that keeps it from reading until the request has finished.
    final class SlowClient: Sendable {
        private let state = Mutex(
            (read: [JSONRPCMessage](), opened: false, waiter: CheckedContinuation<Void, Never>?.none)
        )
        var read: [JSONRPCMessage] { state.withLock { $0.read } }

        func write(_ message: JSONRPCMessage) async {
            await withCheckedContinuation { continuation in
                let resume = state.withLock { state in
                    if state.opened { return true }
                    state.waiter = continuation
                    return false
                }
                if resume { continuation.resume() }
            }
            state.withLock { $0.read.append(message) }
        }

        func open() {
            state.withLock { state in
                state.opened = true
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }

    private func progress(_ step: Int) -> JSONRPCMessage {
        .notification(JSONRPCNotification(method: "notifications/progress", params: ["progress": .int(step)]))
    }

    @Test func aFloodWaitsOnlyUpToTheBoundAndTheResponseComesLast() async {
        let client = SlowClient()
        await RelatedMessageRelay.run(bound: 16, write: { await client.write($0) }) { related in
            for step in 0..<10_000 { related(progress(step)) }
            client.open()
            return JSONRPCResponse(id: .int(1), result: ["done": true])
        }
        let read = client.read
        #expect(read.count <= 16 + 2, "at most the bound, one message in the client's hands, and the response")
        #expect(read.last == .response(JSONRPCResponse(id: .int(1), result: ["done": true])))
        #expect(read.dropLast().last == progress(9_999), "the newest progress is kept")
    }

    @Test func aClientThatKeepsUpGetsEveryMessageInOrder() async {
        let written = Mutex<[JSONRPCMessage]>([])
        await RelatedMessageRelay.run(bound: 4, write: { message in written.withLock { $0.append(message) } }) {
            related in
            for step in 0..<3 {
                related(progress(step))
                await Task.yield()
            }
            return JSONRPCResponse(id: .int(2), result: [:])
        }
        #expect(
            written.withLock { $0 } == (0..<3).map(progress) + [.response(JSONRPCResponse(id: .int(2), result: [:]))]
        )
    }
}
