import Synchronization
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// Answers one request with a JSON body, unless the client must be sent something first (a request an
/// upstream asked during the call): the answer then turns into an SSE stream that carries it, the rest, and
/// finally the response, as Streamable HTTP lets a server do on a POST.
///
/// The choice waits for whichever comes first, so a call that asks nothing costs what a JSON answer costs.
enum UpgradableAnswer {
    /// `answer` makes the HTTP answer of a response sent as JSON (its status, its headers); a stream is always 200.
    static func respond(
        bound: Int = RelatedMessageRelay.defaultBound,
        answer: (JSONRPCResponse) -> HTTPResponse = { FrontResponses.jsonRPC(200, .response($0)) },
        run: @escaping @Sendable (@escaping RelatedMessageSink) async -> JSONRPCResponse
    ) async -> HTTPResponse {
        let switchboard = Switchboard(bound: bound)
        // Not a child of this handler: in the streaming case the call outlives the handler's return and
        // ends with the stream (the client leaving cancels it).
        let call = Task { switchboard.finish(await run(switchboard.send)) }
        let first = await withTaskCancellationHandler {
            await switchboard.first()
        } onCancel: {
            call.cancel()
        }
        switch first {
        case .response(let response):
            return answer(response)
        case .stream(let messages):
            return HTTPResponse(
                status: 200,
                headers: SSE.headers,
                body: .stream { writer in
                    await withTaskCancellationHandler {
                        for await message in messages {
                            do { try await writer.write(SSE.event(message)) } catch {
                                call.cancel()
                                return
                            }
                        }
                    } onCancel: {
                        call.cancel()
                    }
                }
            )
        }
    }

    enum First: Sendable {
        case response(JSONRPCResponse)
        case stream(AsyncStream<JSONRPCMessage>)
    }

    /// Decides, once, between the response and the stream, and feeds the stream after that.
    final class Switchboard: Sendable {
        private struct State {
            /// `first()` waiting for the decision.
            var waiter: CheckedContinuation<First, Never>?
            /// The decision, made before anyone waited for it.
            var decided: First?
            /// The stream's input, once the answer is a stream.
            var sink: AsyncStream<JSONRPCMessage>.Continuation?
            var finished = false
        }

        private let state = Mutex(State())
        private let bound: Int

        init(bound: Int) { self.bound = bound }

        /// What comes first: the response, or the stream (when a message came before it).
        func first() async -> First {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> First? in
                    guard let decided = state.decided else {
                        state.waiter = continuation
                        return nil
                    }
                    state.decided = nil
                    return decided
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        /// A message for the client while the call runs. Only the newest `bound` wait for a slow reader.
        func send(_ message: JSONRPCMessage) {
            let (sink, decision, waiter) = state.withLock { state in
                guard !state.finished else {
                    return (
                        AsyncStream<JSONRPCMessage>.Continuation?.none, First?.none,
                        CheckedContinuation<First, Never>?.none
                    )
                }
                if let sink = state.sink { return (sink, nil, nil) }
                let (stream, sink) = AsyncStream.makeStream(
                    of: JSONRPCMessage.self,
                    bufferingPolicy: .bufferingNewest(bound)
                )
                state.sink = sink
                return Self.decide(.stream(stream), &state).map { (sink, $0.0, $0.1) } ?? (sink, nil, nil)
            }
            sink?.yield(message)
            if let decision, let waiter { waiter.resume(returning: decision) }
        }

        /// The call's response: the JSON answer, or the stream's last message.
        func finish(_ response: JSONRPCResponse) {
            let (sink, decision, waiter) = state.withLock { state in
                guard !state.finished else {
                    return (
                        AsyncStream<JSONRPCMessage>.Continuation?.none, First?.none,
                        CheckedContinuation<First, Never>?.none
                    )
                }
                state.finished = true
                if let sink = state.sink { return (sink, nil, nil) }
                return Self.decide(.response(response), &state).map { (nil, $0.0, $0.1) } ?? (nil, nil, nil)
            }
            if let sink {
                sink.yield(.response(response))
                sink.finish()
            }
            if let decision, let waiter { waiter.resume(returning: decision) }
        }

        /// Hands `decision` to the waiter (returned, to resume outside the lock) or keeps it for `first()`.
        private static func decide(
            _ decision: First,
            _ state: inout State
        ) -> (First, CheckedContinuation<First, Never>)? {
            guard let waiter = state.waiter else {
                state.decided = decision
                return nil
            }
            state.waiter = nil
            return (decision, waiter)
        }
    }
}
