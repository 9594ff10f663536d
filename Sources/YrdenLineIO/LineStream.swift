import Dispatch

/// One unit read from a line-framed peer: a line, or the news that a line was too long and was dropped.
package enum LineInput: Sendable, Hashable {
    case line([UInt8])
    /// A line of at least this many bytes, longer than the reader's limit; its bytes were not kept.
    case oversized(bytes: Int)
}

/// Lines from a blocking reader (a thread running ``LineReader``) as an async sequence, with a bound on how
/// many lines wait to be taken.
///
/// When `maxWaiting` lines are waiting, ``Feed/yield(_:)`` blocks the reading thread: the peer's pipe fills
/// and the peer waits, instead of the gateway buffering whatever it sends.
package struct LineStream: AsyncSequence, Sendable {
    package typealias Element = LineInput
    package typealias Failure = Never
    package static let defaultMaxWaiting = 64

    private let lines: AsyncStream<LineInput>
    private let slots: DispatchSemaphore

    /// The reading thread's end: hands over lines, blocking while the stream is full.
    package struct Feed: Sendable {
        let continuation: AsyncStream<LineInput>.Continuation
        let slots: DispatchSemaphore

        /// Waits for a free slot (blocking the calling thread), then hands `input` over.
        package func yield(_ input: LineInput) {
            slots.wait()
            continuation.yield(input)
        }

        /// End of input: the sequence ends once the waiting lines are taken.
        package func finish() {
            continuation.finish()
        }
    }

    /// A stream and the feed a reading thread fills it through.
    package static func makeStream(maxWaiting: Int = defaultMaxWaiting) -> (LineStream, Feed) {
        let (lines, continuation) = AsyncStream.makeStream(of: LineInput.self)
        let slots = DispatchSemaphore(value: Swift.max(maxWaiting, 1))
        return (LineStream(lines: lines, slots: slots), Feed(continuation: continuation, slots: slots))
    }

    private init(lines: AsyncStream<LineInput>, slots: DispatchSemaphore) {
        self.lines = lines
        self.slots = slots
    }

    package func makeAsyncIterator() -> Iterator {
        Iterator(lines: lines.makeAsyncIterator(), slots: slots)
    }

    /// Takes the next line and frees its slot for the reading thread.
    package struct Iterator: AsyncIteratorProtocol {
        var lines: AsyncStream<LineInput>.Iterator
        let slots: DispatchSemaphore

        package mutating func next() async -> LineInput? {
            guard let input = await lines.next(isolation: #isolation) else { return nil }
            slots.signal()
            return input
        }
    }
}
