import Foundation
import Testing
import YrdenHTTPServer
import YrdenTransport

/// The gateway's listener runs without libmicrohttpd threads, on the process's one event loop (the stdio
/// reactor's thread). These tests drive that mode with the real loop: libmicrohttpd then runs only when its
/// descriptor is ready, its timeout is due, or a resume asks for it, so an answer that nothing asks it to send
/// would hang: each test's client has a deadline.
extension LiveServerTests {
    @Suite struct SharedLoop {
        /// The same server, served by the shared loop.
        private func configuration(requestTimeout: Duration = .seconds(30)) throws -> HTTPServerConfiguration {
            var configuration = testConfiguration(requestTimeout: requestTimeout)
            configuration.eventLoop = LoopAdapter(loop: try ProcessEventLoop.shared())
            return configuration
        }

        /// One keep-alive connection, answers made on the loop's thread (inline) and on other threads (after a
        /// suspension): every answer is sent without waiting for another request to wake libmicrohttpd.
        @Test func keepAliveAnswersFromAnyThreadAreSent() async throws {
            let handler: HTTPHandler = { request in
                if request.path == "/later" { try? await Task.sleep(for: .milliseconds(1)) }
                return .text(200, request.path)
            }
            try await withServer(try configuration(), handler: handler) { server in
                let port = server.port
                let paths = try await onThread {
                    let connection = try TestConnection(port: port, receiveTimeout: 5)
                    return try (0..<200).map { index in
                        try connection.request("GET", index % 2 == 0 ? "/now" : "/later").text
                    }
                }
                #expect(paths == (0..<200).map { $0 % 2 == 0 ? "/now" : "/later" })
            }
        }

        @Test func manyConnectionsAtOnceAreAllServed() async throws {
            try await withServer(try configuration(), handler: echoHandler) { server in
                let port = server.port
                let answered = try await withThrowingTaskGroup(of: Int.self) { group in
                    for client in 0..<16 {
                        group.addTask {
                            try await onThread {
                                let connection = try TestConnection(port: port, receiveTimeout: 5)
                                return try (0..<50).filter { call in
                                    let body = Array("\(client)-\(call)".utf8)
                                    return try connection.request("POST", "/echo", body: body).body == body
                                }.count
                            }
                        }
                    }
                    return try await group.reduce(0, +)
                }
                #expect(answered == 16 * 50)
            }
        }

        @Test func streamsFlowAndEnd() async throws {
            let handler: HTTPHandler = { _ in
                HTTPResponse(
                    status: 200,
                    headers: ["Content-Type": "text/event-stream"],
                    body: .stream { writer in
                        for index in 1...3 {
                            try? await Task.sleep(for: .milliseconds(20))
                            try? await writer.write("data: \(index)\n\n")
                        }
                    }
                )
            }
            try await withServer(try configuration(), handler: handler) { server in
                let port = server.port
                let chunks = try await onThread {
                    let connection = try TestConnection(port: port, receiveTimeout: 5)
                    try connection.sendRequest("GET", "/events")
                    _ = try connection.readHead()
                    var chunks: [String] = []
                    while let chunk = try connection.readChunk() {
                        chunks.append(String(decoding: chunk, as: UTF8.self))
                    }
                    return chunks
                }
                #expect(chunks.joined() == "data: 1\n\ndata: 2\n\ndata: 3\n\n")
            }
        }

        /// A client that sends half a request is closed at the request deadline: libmicrohttpd's timeouts run
        /// without its own threads too.
        @Test func incompleteRequestsStillTimeOut() async throws {
            try await withServer(try configuration(requestTimeout: .milliseconds(300)), handler: echoHandler) {
                server in
                let port = server.port
                let closed = try await onThread {
                    let connection = try TestConnection(port: port, receiveTimeout: 5)
                    try connection.send("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
                    return (try? connection.readHead()) == nil
                }
                #expect(closed)
            }
        }

        /// Shutdown with a handler that never answers: the request is answered 503 and `run()` returns, with the
        /// daemon stopped on the loop's thread.
        @Test func shutdownEndsAHandlerThatNeverAnswers() async throws {
            let started = TestSignal()
            let handler: HTTPHandler = { _ in
                started.fire()
                try? await Task.sleep(for: .seconds(3600))
                return .text(200, "late")
            }
            let server = try HTTPServer(configuration: try configuration(), logger: testLogger, handler: handler)
            let port = server.port
            let run = Task { try await server.run() }
            let status = Task {
                try await onThread { try TestConnection(port: port, receiveTimeout: 15).request("GET", "/hang").status }
            }
            #expect(await started.wait())
            run.cancel()
            try await run.value
            #expect(try await status.value == 503)
        }
    }
}

/// What the composition root does: the process's loop offered to the HTTP server.
private struct LoopAdapter: HTTPEventLoop {
    let loop: ProcessEventLoop
    func drive(_ descriptor: Int32, _ turn: @escaping @Sendable () -> Duration?) throws {
        try loop.drive(descriptor, turn)
    }
    func wake(_ descriptor: Int32) { loop.wake(descriptor) }
    func stopDriving(_ descriptor: Int32, then last: @escaping @Sendable () -> Void) {
        loop.stopDriving(descriptor, then: last)
    }
}
