import Synchronization
import YrdenProtocol
import YrdenTransport

/// One connection to a fake server: what the gateway sends is parsed, recorded and answered by the server's
/// script; what the server says is delivered as a transport's reader would, never inside `send`.
///
/// Once it is closed (by the gateway, or by a crash) nothing more is delivered and the handlers still
/// running are cancelled, as a dead process would stop mid-request.
final class FakeChannel: UpstreamChannel {
    private struct State {
        var open = true
        var handlers: [UInt64: Task<Void, Never>] = [:]
        var lastHandler: UInt64 = 0
    }

    let upstream: FakeUpstream
    private let handler: UpstreamChannelHandler
    private let onClose: @Sendable () -> Void
    private let state = Mutex(State())

    init(upstream: FakeUpstream, handler: UpstreamChannelHandler, onClose: @escaping @Sendable () -> Void) {
        self.upstream = upstream
        self.handler = handler
        self.onClose = onClose
    }

    var isOpen: Bool { state.withLock { $0.open } }

    func send(_ frame: [UInt8]) throws(UpstreamError) {
        guard isOpen else { throw UpstreamError(.notConnected, "the fake server's channel is closed") }
        guard let value = try? JSONValue.parse(frame), let message = try? JSONRPCMessage(value) else {
            upstream.log.append("unparsable frame: \(String(decoding: frame, as: UTF8.self))")
            return
        }
        upstream.received.append(message)
        guard case .request(let request) = message, let answer = upstream.handler(for: request) else { return }
        run { [self] in
            let reply = await answer(FakeCall(request: request, upstream: upstream, channel: self))
            switch reply {
            case .result(let result): deliver(.response(JSONRPCResponse(id: request.id, result: result)))
            case .error(let error): deliver(.response(JSONRPCResponse(id: request.id, error: error)))
            case .never: break
            }
        }
    }

    /// Hands a message to the gateway, unless the channel is closed.
    func deliver(_ message: JSONRPCMessage) {
        guard isOpen else { return }
        handler.frame(message.serialized())
    }

    /// Ends the channel from the server's side: the gateway hears `error` as the channel's end.
    func crash(_ error: UpstreamError) {
        guard shut() else { return }
        handler.closed(error)
    }

    func close() async {
        shut()
        let delay = upstream.script.closeDelay
        if delay > .zero { try? await Task.sleep(for: delay) }
        onClose()
    }

    /// Marks the channel closed and stops its handlers; `false` when it already was.
    @discardableResult
    private func shut() -> Bool {
        let handlers = state.withLock { state -> [Task<Void, Never>]? in
            guard state.open else { return nil }
            state.open = false
            defer { state.handlers.removeAll() }
            return Array(state.handlers.values)
        }
        handlers?.forEach { $0.cancel() }
        return handlers != nil
    }

    /// Runs a request's handler in its own task, cancelled when the channel closes.
    private func run(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            guard state.open else { return }
            state.lastHandler += 1
            let id = state.lastHandler
            state.handlers[id] = Task { [self] in
                await work()
                _ = self.state.withLock { $0.handlers.removeValue(forKey: id) }
            }
        }
    }
}
