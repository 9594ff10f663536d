/// The life of one request/response exchange, as both sides see it: libmicrohttpd's threads (upload, queueing
/// the response, reading a stream) and Swift tasks (the handler's answer, stream writes, shutdown).
///
/// It performs no I/O. Each event returns what its caller must do next (suspend or resume the connection, queue
/// a response), so every transition is unit-testable without a socket. The owner (`Exchange`) keeps it behind one
/// lock and performs the suspend/resume the state asks for *while holding that lock*; that way `suspended` here
/// and "libmicrohttpd has the connection suspended" always change together, and exactly one resume follows each
/// suspend. That matters twice over: resuming a connection that is not suspended is undefined behaviour, and
/// `MHD_stop_daemon` aborts the process while any connection is suspended.
///
///     receiving ──final call──▶ awaitingResponse ──answer (or 503)──▶ responseReady ──final call──▶ sending
///         │ body too big                                                      └──final call, stream──▶ streaming
///         ▼
///     rejecting ──final call──▶ sending (413)          any phase ──libmicrohttpd is done with it──▶ completed
///
///     responseReady ──final call, 101──▶ upgrading ──head sent, socket handed over──▶ upgraded
struct ExchangeState {
    enum Phase {
        /// The request body is arriving.
        case receiving
        /// The body is too large: the rest is discarded and this answer is sent after the upload.
        case rejecting(HTTPResponse)
        /// The request is with the handler and the connection is suspended until it answers.
        case awaitingResponse
        /// An answer is stored and the connection resumed; libmicrohttpd's next call queues it.
        case responseReady(HTTPResponse)
        /// A complete body was queued; libmicrohttpd owns the rest.
        case sending
        /// A streamed body was queued; `stream` feeds it.
        case streaming
        /// A `101` answer was queued; libmicrohttpd hands the socket over once its head is sent.
        case upgrading
        /// The socket is the upgrade's: libmicrohttpd keeps the connection suspended until it is closed.
        case upgraded
        /// libmicrohttpd reported the end of the exchange: never touch the connection again.
        case completed
    }

    /// What libmicrohttpd's final access-handler call must do.
    enum FinalCallAction {
        /// Suspend the connection (under the lock) and hand the request to Swift.
        case dispatch(body: [UInt8])
        /// Queue this response now.
        case queue(HTTPResponse)
        /// Close the connection without an answer.
        case close
    }

    /// What the content-reader callback must return.
    enum ReadAction: Equatable {
        /// This many bytes were copied; `wakeWriters` when writers waiting for room may continue.
        case bytes(Int, wakeWriters: Bool)
        /// Nothing to send yet: suspend the connection (under the lock) and return 0.
        case suspend
        case endOfStream
        case error
    }

    /// The outcome of a stream write.
    enum WriteAction: Equatable {
        case queued(resume: Bool)
        /// Too many bytes are unsent: wait for the reader to drain, then try again.
        case mustWait
        case closed
    }

    let maxBodyBytes: Int
    private(set) var phase: Phase = .receiving
    private(set) var body: [UInt8] = []
    private var discardedBytes = 0
    /// Whether the connection is suspended on this exchange's behalf (so exactly one resume is owed).
    private(set) var suspended = false
    private(set) var stream = StreamBuffer()
    /// Writes throw from now on: the writer finished, the client left or the server is stopping.
    private(set) var writesClosed = false
    /// A writer is waiting for the reader to drain the buffer.
    private var writersWaiting = false
    /// Bytes a stream ends with when the server stops it (see ``HTTPBodyWriter/setClosingWords(_:)``).
    private var closingWords: [UInt8]?

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    // MARK: Request side (libmicrohttpd threads)

    /// The first access-handler call, with the declared `Content-Length` if any. A body declared too large is
    /// read and thrown away, and refused with 413 once it is in: a client still uploading does not read an
    /// early answer, and closing on it would turn the 413 into a reset. Only a body far over the limit is
    /// refused at once (libmicrohttpd then closes the connection).
    mutating func begin(declaredLength: Int?) -> HTTPResponse? {
        guard let declared = declaredLength else { return nil }
        if declared > maxDiscardBytes {
            phase = .sending
            return tooLarge()
        }
        if declared > maxBodyBytes {
            phase = .rejecting(tooLarge())
            return nil
        }
        body.reserveCapacity(min(declared, 1 << 20))  // a declared length is a promise, not a reason to allocate
        return nil
    }

    /// A piece of the request body. Returns false when the connection should be closed (a client that keeps
    /// sending long after it was refused).
    mutating func receive(_ piece: UnsafeRawBufferPointer) -> Bool {
        switch phase {
        case .receiving:
            // `body.count` never exceeds the limit, so this difference cannot overflow (the sum could).
            if piece.count > maxBodyBytes - body.count {
                discardedBytes = body.count.addingSaturated(piece.count)
                body = []
                phase = .rejecting(tooLarge())
            } else {
                body.append(contentsOf: piece)
            }
            return true
        case .rejecting:
            discardedBytes = discardedBytes.addingSaturated(piece.count)
            return discardedBytes <= maxDiscardBytes
        default:
            return true
        }
    }

    /// The access handler's final call: the upload is complete, or libmicrohttpd calls again after a resume.
    mutating func finalCall() -> FinalCallAction {
        switch phase {
        case .receiving:
            phase = .awaitingResponse
            suspended = true
            let complete = body
            body = []
            return .dispatch(body: complete)
        case .rejecting(let response):
            phase = .sending
            return .queue(response)
        case .responseReady(let response):
            switch response.body {
            case .stream: phase = .streaming
            case .upgrade: phase = .upgrading
            case .bytes: phase = .sending
            }
            return .queue(response)
        case .awaitingResponse, .sending, .streaming, .upgrading, .upgraded, .completed:
            return .close
        }
    }

    // MARK: Response side (Swift tasks)

    /// The handler's answer. Returns whether it was accepted and whether the connection must be resumed; an
    /// answer arriving after the exchange was given up (shutdown, refusal) is dropped.
    mutating func deliver(_ response: HTTPResponse) -> (accepted: Bool, resume: Bool) {
        guard case .awaitingResponse = phase else { return (false, false) }
        phase = .responseReady(response)
        return (true, takeSuspension())
    }

    /// Swift could not take the request (the server is stopping): answer 503 instead. Returns whether to resume.
    mutating func refuse() -> Bool {
        guard case .awaitingResponse = phase else { return false }
        phase = .responseReady(Self.unavailable())
        return takeSuspension()
    }

    /// Shutdown gives up on this exchange: a pending request is answered 503 and a stream is ended (bytes
    /// already queued are still sent). Returns whether to resume the connection.
    mutating func abort() -> Bool {
        switch phase {
        case .awaitingResponse:
            phase = .responseReady(Self.unavailable())
            return takeSuspension()
        case .responseReady, .streaming, .upgrading, .upgraded:
            return endStream(serverStopping: true)
        case .receiving, .rejecting, .sending, .completed:
            return false
        }
    }

    // MARK: Upgrade

    /// libmicrohttpd handed the socket of a `101` answer over. Returns whether the exchange takes it (it was
    /// waiting for it); otherwise the socket is to be closed at once.
    mutating func upgraded() -> Bool {
        guard case .upgrading = phase else { return false }
        phase = .upgraded
        return true
    }

    // MARK: Stream

    mutating func write(_ bytes: [UInt8]) -> WriteAction {
        if writesClosed { return .closed }
        if bytes.isEmpty { return .queued(resume: false) }
        if stream.pendingCount >= StreamBuffer.highWater {
            writersWaiting = true
            return .mustWait
        }
        stream.append(bytes)
        return .queued(resume: takeSuspension())
    }

    /// Whether a writer must wait for room now; if so, the next drain below the low-water mark wakes it.
    /// Checked again under the lock when the writer registers, so a drain in between cannot be missed.
    mutating func mustWaitForRoom() -> Bool {
        guard !writesClosed, stream.pendingCount >= StreamBuffer.highWater else { return false }
        writersWaiting = true
        return true
    }

    /// The content-reader callback. On `.suspend` the caller must suspend the connection before unlocking.
    mutating func read(into destination: UnsafeMutableRawBufferPointer) -> ReadAction {
        guard case .streaming = phase else { return .error }
        if !stream.isEmpty {
            let count = stream.take(into: destination)
            let wake = writersWaiting && stream.pendingCount <= StreamBuffer.lowWater
            if wake { writersWaiting = false }
            return .bytes(count, wakeWriters: wake)
        }
        if stream.finished { return .endOfStream }
        suspended = true
        return .suspend
    }

    /// What a stream says last if the server stops it; replaces earlier words, ignored once writes closed.
    mutating func setClosingWords(_ bytes: [UInt8]) {
        if !writesClosed { closingWords = bytes }
    }

    /// Ends a streamed body: no more writes; the reader sends what is queued, then the end. Used when the writer
    /// returns and when the server stops (then the stream's closing words go last); does nothing unless the
    /// answer is a stream or an upgrade (whose closure is then told to end: writes close). Returns whether to
    /// resume.
    mutating func endStream(serverStopping: Bool = false) -> Bool {
        switch phase {
        case .responseReady(let response):
            if case .bytes = response.body { return false }
        case .streaming, .upgrading, .upgraded:
            break
        case .receiving, .rejecting, .awaitingResponse, .sending, .completed:
            return false
        }
        if serverStopping, !writesClosed, let closingWords { stream.append(closingWords) }
        closingWords = nil
        writesClosed = true
        stream.finished = true
        return takeSuspension()
    }

    // MARK: Completion (libmicrohttpd threads)

    /// libmicrohttpd reported the end of the exchange (sent, failed, client gone or daemon stopping).
    mutating func complete() {
        phase = .completed
        writesClosed = true
        stream.finished = true
        writersWaiting = false
        suspended = false
    }

    // MARK: Helpers

    private mutating func takeSuspension() -> Bool {
        defer { suspended = false }
        return suspended
    }

    /// How much of a refused body is read and discarded before the connection is simply closed. Saturates: a
    /// limit near `Int.max` (any value the configuration allows) must not trap here.
    private var maxDiscardBytes: Int { maxBodyBytes.addingSaturated(maxBodyBytes).addingSaturated(1 << 20) }

    private func tooLarge() -> HTTPResponse {
        .problem(413, "Payload Too Large", detail: "request body exceeds \(maxBodyBytes) bytes")
    }

    private static func unavailable() -> HTTPResponse {
        .problem(503, "Service Unavailable", detail: "server is shutting down")
    }
}
