import NIOCore
import NIOHTTP1
import Synchronization
import YrdenExecution

/// One request and its answer on a pooled connection, shared by the task that waits for it and the reader on
/// the connection's event loop.
///
/// The waiting task is resumed once for the answer's head, and not before the body ended unless the body is
/// an event stream (read as it comes) or large: a JSON answer read in one pass of the loop costs one wake-up.
/// The body waits here until the task takes it; past ``maxBufferedBytes`` the connection stops reading, so a
/// server cannot fill memory faster than the gateway hands its answer on.
///
/// A 2xx JSON answer of at most ``maxArrivalBytes`` goes further when the exchange has ``onArrival``: it is
/// handed over right where it was read, with inline runs allowed, so the request task it answers continues on
/// the connection's event loop up to its own answer, and so does the waiting task (both prefer
/// ``InlineExecutor``): no thread of the global pool is woken for the call.
final class PooledExchange: Sendable {
    /// Unread body bytes past which the connection stops reading until the task takes some.
    static let maxBufferedBytes = 1 << 20
    /// Body bytes after which the head is handed over even before the end (a large JSON answer).
    static let earlyHeadBytes = 64 << 10
    /// The largest answer handed over on the event loop, as the stdio reactor bounds its own inline frames:
    /// decoding a larger one there would hold up every other connection of the loop.
    static let maxArrivalBytes = 16 << 10

    private struct State {
        var headWaiter: CheckedContinuation<HTTPResponseHead, any Error>?
        var head: HTTPResponseHead?
        var headDelivered = false
        var chunks: [ByteBuffer] = []
        var next = 0
        var buffered = 0
        var ended = false
        var failure: (any Error)?
        var bodyWaiter: CheckedContinuation<ByteBuffer?, any Error>?
        var paused = false
        /// What ``onArrival`` said of the answer it was handed: whether it answered the request.
        var answeredOnArrival: Bool?
    }

    private let state = Mutex(State())
    /// Closes the connection: a cancelled task or an abandoned body ends its exchange this way.
    let abort: @Sendable () -> Void
    /// Reading again after a pause (called off the loop; the connection hops).
    let resumeReading: @Sendable () -> Void

    /// Takes a whole 2xx JSON answer where it arrived; true when it answered the request.
    let onArrival: (@Sendable ([UInt8]) -> Bool)?

    init(
        abort: @escaping @Sendable () -> Void,
        resumeReading: @escaping @Sendable () -> Void,
        onArrival: (@Sendable ([UInt8]) -> Bool)? = nil
    ) {
        self.abort = abort
        self.resumeReading = resumeReading
        self.onArrival = onArrival
    }

    /// Whether the answer was handed to ``onArrival`` (and what it said), `nil` when it was left to the task.
    var answeredOnArrival: Bool? { state.withLock { $0.answeredOnArrival } }

    /// Whether the body ended or the exchange failed.
    var isFinished: Bool { state.withLock { $0.ended || $0.failure != nil } }

    // MARK: - The waiting task

    /// Waits for the answer's head; throws the connection's failure, or `CancellationError` (the connection is
    /// then closed: an answer half read cannot be reused).
    func head() async throws -> HTTPResponseHead {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<HTTPResponseHead, any Error>? = state.withLock { state in
                    if let failure = state.failure, !state.headDelivered { return .failure(failure) }
                    if let head = state.head, state.headDelivered { return .success(head) }
                    state.headWaiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            fail(CancellationError())
            abort()
        }
    }

    /// The next piece of the body, `nil` at its end.
    func nextChunk() async throws -> ByteBuffer? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (ready, resume) = state.withLock { state -> (Result<ByteBuffer?, any Error>?, Bool) in
                    if let chunk = Self.take(&state) {
                        let resume = state.paused && state.buffered < Self.maxBufferedBytes / 2
                        if resume { state.paused = false }
                        return (.success(chunk), resume)
                    }
                    if let failure = state.failure { return (.failure(failure), false) }
                    if state.ended { return (.success(nil), false) }
                    state.bodyWaiter = continuation
                    return (nil, false)
                }
                if resume { resumeReading() }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            fail(CancellationError())
            abort()
        }
    }

    private static func take(_ state: inout State) -> ByteBuffer? {
        guard state.next < state.chunks.count else { return nil }
        let chunk = state.chunks[state.next]
        state.next += 1
        state.buffered -= chunk.readableBytes
        if state.next == state.chunks.count {
            state.chunks.removeAll(keepingCapacity: true)
            state.next = 0
        }
        return chunk
    }

    // MARK: - The connection's reader (on its event loop)

    func received(_ head: HTTPResponseHead) {
        state.withLock { $0.head = head }
    }

    /// A piece of the body; true when the connection should stop reading for now.
    func received(_ chunk: ByteBuffer, eventStream: Bool) -> Bool {
        let (headWaiter, bodyWaiter, pause) = state.withLock {
            state -> (
                CheckedContinuation<HTTPResponseHead, any Error>?, CheckedContinuation<ByteBuffer?, any Error>?, Bool
            )
            in
            if let bodyWaiter = state.bodyWaiter {
                state.bodyWaiter = nil
                return (nil, bodyWaiter, false)
            }
            state.chunks.append(chunk)
            state.buffered += chunk.readableBytes
            let pause = state.buffered >= Self.maxBufferedBytes
            if pause { state.paused = true }
            guard !state.headDelivered, eventStream || state.buffered >= Self.earlyHeadBytes else {
                return (nil, nil, pause)
            }
            return (Self.deliverHead(&state), nil, pause)
        }
        if let bodyWaiter {
            bodyWaiter.resume(returning: chunk)
        } else if let headWaiter, let head = state.withLock({ $0.head }) {
            headWaiter.resume(returning: head)
        }
        return pause
    }

    /// The body ended: whoever waits gets the head, or the end. A whole 2xx JSON answer goes to ``onArrival``
    /// first, here.
    func ended() {
        if let onArrival, let body = takeWholeJSON() {
            let answered = InlineRuns.allowed { onArrival(body) }
            let (headWaiter, head) = state.withLock { state in
                state.answeredOnArrival = answered
                state.ended = true
                return (Self.deliverHead(&state), state.head)
            }
            if let headWaiter, let head { InlineRuns.allowed { headWaiter.resume(returning: head) } }
            return
        }
        let (headWaiter, head, bodyWaiter) = state.withLock {
            state -> (
                CheckedContinuation<HTTPResponseHead, any Error>?, HTTPResponseHead?,
                CheckedContinuation<ByteBuffer?, any Error>?
            )
            in
            state.ended = true
            let bodyWaiter = state.bodyWaiter
            state.bodyWaiter = nil
            return (state.headDelivered ? nil : Self.deliverHead(&state), state.head, bodyWaiter)
        }
        if let headWaiter, let head { headWaiter.resume(returning: head) }
        bodyWaiter?.resume(returning: nil)
    }

    /// The exchange failed (the connection closed or broke, the deadline passed, the task was cancelled).
    /// Nothing after the body's end fails it.
    func fail(_ error: any Error) {
        let (headWaiter, bodyWaiter) = state.withLock {
            state -> (CheckedContinuation<HTTPResponseHead, any Error>?, CheckedContinuation<ByteBuffer?, any Error>?)
            in
            guard !state.ended, state.failure == nil else { return (nil, nil) }
            state.failure = error
            defer {
                state.headWaiter = nil
                state.bodyWaiter = nil
            }
            return (state.headWaiter, state.bodyWaiter)
        }
        headWaiter?.resume(throwing: error)
        bodyWaiter?.resume(throwing: error)
    }

    /// Marks the head delivered; returns its waiter, if one waits yet (else ``head()`` finds it delivered).
    private static func deliverHead(_ state: inout State) -> CheckedContinuation<HTTPResponseHead, any Error>? {
        guard state.head != nil else { return nil }
        state.headDelivered = true
        defer { state.headWaiter = nil }
        return state.headWaiter
    }
}

extension PooledExchange {
    /// Nobody will read the rest of the body: unless it ended, the connection is closed (it cannot be reused
    /// with part of an answer unread).
    func abandon() {
        if isFinished { return }
        fail(CancellationError())
        abort()
    }
}

extension PooledExchange {
    /// The body as one array, taken, when the answer is a 2xx JSON one still undelivered and whole in memory.
    fileprivate func takeWholeJSON() -> [UInt8]? {
        state.withLock { state -> [UInt8]? in
            guard !state.headDelivered, state.buffered <= Self.maxArrivalBytes, let head = state.head,
                (200..<300).contains(head.status.code),
                head.headers.first(name: "Content-Type")?.lowercased().hasPrefix("application/json") == true
            else { return nil }
            var body = [UInt8]()
            body.reserveCapacity(state.buffered)
            for chunk in state.chunks[state.next...] { body.append(contentsOf: chunk.readableBytesView) }
            state.chunks.removeAll()
            state.next = 0
            state.buffered = 0
            return body
        }
    }
}
