import CMicroHTTPD
import Synchronization

/// A libmicrohttpd connection pointer that may cross threads.
///
/// libmicrohttpd keeps the connection alive until it reports completion, and `Exchange` only calls into it
/// while its state says the connection is suspended (so it cannot have completed), which is what makes sharing
/// the pointer sound.
struct ConnectionHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// One request/response exchange on a connection: the shared object that libmicrohttpd's callbacks (through
/// `*con_cls` and the stream reader's `cls`) and Swift tasks (handler, stream writer, shutdown) both hold.
///
/// All decisions live in `ExchangeState`; this class adds the lock, the suspend/resume calls the state asks for
/// (made while the lock is held, see `ExchangeState`) and the continuations of Swift tasks waiting on the
/// exchange. A libmicrohttpd thread only ever waits for this short lock, never for Swift work.
final class Exchange: Sendable {
    private struct Locked {
        var state: ExchangeState
        var roomWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID: UInt64 = 0
        var closeWaiter: CheckedContinuation<Void, Never>?
        /// An upgrade's socket, once libmicrohttpd handed it over, and the handler task waiting for it.
        var socket: UpgradedSocket?
        var upgradeWaiter: CheckedContinuation<UpgradedSocket?, Never>?

        /// Continuations to resume after unlocking: everyone once writes have closed.
        mutating func wakeupsAfterClose() -> [CheckedContinuation<Void, Never>] {
            guard state.writesClosed else { return [] }
            var wakeups = Array(roomWaiters.values)
            roomWaiters.removeAll()
            if let closeWaiter = closeWaiter.take() { wakeups.append(closeWaiter) }
            return wakeups
        }
    }

    let connection: ConnectionHandle
    private let locked: Mutex<Locked>
    /// The loop that runs libmicrohttpd when it has no threads of its own, told of every resume.
    private let loop: LoopWaker?

    init(connection: ConnectionHandle, maxBodyBytes: Int, loop: LoopWaker? = nil) {
        self.connection = connection
        self.locked = Mutex(Locked(state: ExchangeState(maxBodyBytes: maxBodyBytes)))
        self.loop = loop
    }

    /// Resumes the suspended connection and, without libmicrohttpd threads, asks its loop to run it.
    private func resumeConnection() {
        MHD_resume_connection(connection.raw)
        loop?.wake()
    }

    // MARK: libmicrohttpd side (called on its threads, inside its callbacks)

    func begin(declaredLength: Int?) -> HTTPResponse? {
        locked.withLock { $0.state.begin(declaredLength: declaredLength) }
    }

    func receive(_ piece: UnsafeRawBufferPointer) -> Bool {
        locked.withLock { $0.state.receive(piece) }
    }

    /// The final access-handler call; on `.dispatch` the connection is already suspended when this returns.
    func finalCall() -> ExchangeState.FinalCallAction {
        locked.withLock { locked in
            let action = locked.state.finalCall()
            if case .dispatch = action { MHD_suspend_connection(connection.raw) }
            return action
        }
    }

    /// The stream's content-reader callback: a byte count, 0 after suspending, or libmicrohttpd's end markers.
    func read(into destination: UnsafeMutableRawBufferPointer) -> Int {
        let (action, wakeups) = locked.withLock { locked in
            let action = locked.state.read(into: destination)
            var wakeups: [CheckedContinuation<Void, Never>] = []
            switch action {
            case .suspend:
                MHD_suspend_connection(connection.raw)
            case .bytes(_, wakeWriters: true):
                wakeups = Array(locked.roomWaiters.values)
                locked.roomWaiters.removeAll()
            default:
                break
            }
            return (action, wakeups)
        }
        for wakeup in wakeups { wakeup.resume() }
        switch action {
        case .bytes(let count, _): return count
        case .suspend: return 0
        case .endOfStream: return -1  // MHD_CONTENT_READER_END_OF_STREAM
        case .error: return -2  // MHD_CONTENT_READER_END_WITH_ERROR
        }
    }

    /// libmicrohttpd finished with the exchange (response sent, client gone, or daemon stopping).
    func complete() {
        let (wakeups, upgradeWaiter, socket) = locked.withLock { locked in
            locked.state.complete()
            return (locked.wakeupsAfterClose(), locked.upgradeWaiter.take(), locked.socket)
        }
        for wakeup in wakeups { wakeup.resume() }
        upgradeWaiter?.resume(returning: socket)
    }

    /// The head of this exchange's `101` answer was sent and libmicrohttpd handed the socket over.
    func upgraded(socket descriptor: Int32, leftover: [UInt8], handle: UpgradeHandle) {
        let socket = UpgradedSocket(descriptor: descriptor, leftover: leftover, handle: handle, loop: loop)
        let (taken, waiter) = locked.withLock { locked in
            guard locked.state.upgraded() else { return (false, nil as CheckedContinuation<UpgradedSocket?, Never>?) }
            locked.socket = socket
            return (true, locked.upgradeWaiter.take())
        }
        guard taken else { return socket.close() }
        waiter?.resume(returning: socket)
    }

    // MARK: Swift side

    /// Hands the handler's answer over. Returns false when the exchange no longer wants it.
    func deliver(_ response: HTTPResponse) -> Bool {
        locked.withLock { locked in
            let (accepted, resume) = locked.state.deliver(response)
            if resume { resumeConnection() }
            return accepted
        }
    }

    /// The server could not take the request: answer 503.
    func refuse() {
        locked.withLock { locked in
            if locked.state.refuse() { resumeConnection() }
        }
    }

    /// Shutdown gives up: 503 for a pending request, the end for a stream, an upgraded socket closed (its
    /// closure was told to end and did not: `MHD_stop_daemon` must not find the connection still upgraded).
    func abort() {
        perform { $0.abort() }
        locked.withLock { $0.socket }?.close()
    }

    /// Ends a streamed body: the writer returned, or the server is stopping.
    func endStream(serverStopping: Bool = false) {
        perform { $0.endStream(serverStopping: serverStopping) }
    }

    func setClosingWords(_ bytes: [UInt8]) {
        locked.withLock { $0.state.setClosingWords(bytes) }
    }

    /// Queues bytes of a streamed body, waiting while more than `StreamBuffer.highWater` bytes are unsent.
    func write(_ bytes: [UInt8]) async throws {
        while true {
            let action = locked.withLock { locked in
                let action = locked.state.write(bytes)
                if case .queued(resume: true) = action { resumeConnection() }
                return action
            }
            switch action {
            case .queued: return
            case .closed: throw HTTPServerError.streamClosed
            case .mustWait: try await waitForRoom()
            }
        }
    }

    /// The socket of this exchange's `101` answer, once libmicrohttpd hands it over; `nil` when the exchange
    /// ended first (the head could not be sent, the daemon stopped).
    func waitForUpgrade() async -> UpgradedSocket? {
        await withCheckedContinuation { continuation in
            let ready = locked.withLock { locked -> UpgradedSocket?? in
                if let socket = locked.socket { return .some(socket) }
                if case .completed = locked.state.phase { return .some(nil) }
                locked.upgradeWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Returns once writes have closed (writer finished, client gone, server stopping) or the task is cancelled.
    func waitUntilWritesClose() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let closed = locked.withLock { locked in
                    if locked.state.writesClosed || Task.isCancelled { return true }
                    locked.closeWaiter = continuation
                    return false
                }
                if closed { continuation.resume() }
            }
        } onCancel: {
            locked.withLock { $0.closeWaiter.take() }?.resume()
        }
    }

    // MARK: Helpers

    private func perform(_ event: (inout ExchangeState) -> Bool) {
        let wakeups = locked.withLock { locked in
            if event(&locked.state) { resumeConnection() }
            return locked.wakeupsAfterClose()
        }
        for wakeup in wakeups { wakeup.resume() }
    }

    private func waitForRoom() async throws {
        let id = locked.withLock { locked in
            locked.nextWaiterID += 1
            return locked.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let wait = locked.withLock { locked in
                    guard !Task.isCancelled, locked.state.mustWaitForRoom() else { return false }
                    locked.roomWaiters[id] = continuation
                    return true
                }
                if !wait { continuation.resume() }
            }
        } onCancel: {
            locked.withLock { $0.roomWaiters.removeValue(forKey: id) }?.resume()
        }
        try Task.checkCancellation()
    }
}
