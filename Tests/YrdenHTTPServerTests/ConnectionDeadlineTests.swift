import Foundation
import Testing
import YrdenHTTPServer

extension LiveServerTests {
    /// Connections held without a complete request are closed: trickled headers or bodies at the request
    /// timeout, a client that closed its side mid-request at once. Requests with the server are never cut short.
    @Suite struct ConnectionDeadlines {
        /// Sends `piece` every 100 ms until the server closes the connection (true) or `bound` seconds pass;
        /// the seconds are counted from `started`, when the connection opened.
        private static func trickle(
            _ connection: TestConnection,
            _ piece: String,
            since started: ContinuousClock.Instant = .now,
            bound: Double = 15
        ) -> (closed: Bool, seconds: Double) {
            let deadline = started + .milliseconds(Int(bound * 1000))
            while ContinuousClock.now < deadline {
                if connection.serverHasClosed() { return (true, (ContinuousClock.now - started) / .seconds(1)) }
                do { try connection.send(piece) } catch { return (true, (ContinuousClock.now - started) / .seconds(1)) }
                usleep(100_000)
            }
            return (false, bound)
        }

        @Test func headersTrickledInAreCutOffAtTheRequestTimeout() async throws {
            let calls = Counter()
            let handler: HTTPHandler = { request in
                calls.increment()
                return await echoHandler(request)
            }
            try await withServer(testConfiguration(requestTimeout: .seconds(1)), handler: handler) { server in
                let port = server.port
                let (trickled, normal) = try await onThread {
                    let opened = ContinuousClock.now
                    let slow = try TestConnection(port: port)
                    try slow.send("GET /slow HTTP/1.1\r\nHost: localhost\r\n")
                    let normal = try TestConnection(port: port).request("GET", "/normal")
                    return (Self.trickle(slow, "X-Slow: 1\r\n", since: opened), normal)
                }
                print("trickled headers closed after \(trickled.seconds) s (request timeout 1 s)")
                #expect(trickled.closed)
                #expect(trickled.seconds >= 0.5)
                #expect(normal.status == 200)
                #expect(calls.count == 1)
            }
        }

        @Test func aBodyTrickledInIsCutOffAtTheRequestTimeout() async throws {
            let calls = Counter()
            let handler: HTTPHandler = { request in
                calls.increment()
                return await echoHandler(request)
            }
            try await withServer(testConfiguration(requestTimeout: .seconds(1)), handler: handler) { server in
                let port = server.port
                let trickled = try await onThread {
                    let slow = try TestConnection(port: port)
                    try slow.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n")
                    return Self.trickle(slow, "x")
                }
                print("trickled body closed after \(trickled.seconds) s (request timeout 1 s)")
                #expect(trickled.closed)
                #expect(calls.count == 0)
            }
        }

        /// The client sends part of a request and closes its side in one go; libmicrohttpd alone leaves such a
        /// socket in CLOSE_WAIT until its idle timeout.
        @Test func aPartialRequestWhoseClientClosedItsSideIsClosed() async throws {
            let calls = Counter()
            let handler: HTTPHandler = { request in
                calls.increment()
                return await echoHandler(request)
            }
            try await withServer(handler: handler) { server in
                let port = server.port
                let (closed, seconds) = try await onThread {
                    let connections = try (0..<20).map { _ in
                        let connection = try TestConnection(port: port)
                        try connection.send(
                            "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"partial\":"
                        )
                        connection.shutdownWrite()
                        return connection
                    }
                    let started = ContinuousClock.now
                    let deadline = started + .seconds(10)
                    var open = connections
                    while !open.isEmpty && ContinuousClock.now < deadline {
                        open.removeAll { $0.serverHasClosed() }
                        usleep(20_000)
                    }
                    return (connections.count - open.count, (ContinuousClock.now - started) / .seconds(1))
                }
                print("\(closed) of 20 half-closed partial requests closed within \(seconds) s")
                #expect(closed == 20)
                #expect(calls.count == 0)
            }
        }

        /// Closing the sending side after a complete request is legitimate: the answer still arrives.
        @Test func aClientThatClosesItsSideAfterACompleteRequestGetsItsAnswer() async throws {
            let handler: HTTPHandler = { request in
                try? await Task.sleep(for: .milliseconds(2500))  // several sweeps
                return await echoHandler(request)
            }
            try await withServer(handler: handler) { server in
                let port = server.port
                let response = try await onThread {
                    let connection = try TestConnection(port: port)
                    try connection.sendRequest("POST", "/echo", body: Array("whole".utf8))
                    connection.shutdownWrite()
                    return try connection.readResponse()
                }
                #expect(response.status == 200)
                #expect(response.text == "whole")
            }
        }

        @Test func handlersAndStreamsOutlastingTheRequestTimeoutAreNotCutShort() async throws {
            let handler: HTTPHandler = { request in
                if request.path == "/stream" {
                    return HTTPResponse(
                        status: 200,
                        body: .stream { writer in
                            for index in 1...3 {
                                try? await Task.sleep(for: .milliseconds(500))
                                try? await writer.write("\(index);")
                            }
                        }
                    )
                }
                try? await Task.sleep(for: .milliseconds(1500))
                return .text(200, "slow")
            }
            try await withServer(testConfiguration(requestTimeout: .milliseconds(400)), handler: handler) { server in
                let port = server.port
                let (slow, stream) = try await onThread {
                    let connection = try TestConnection(port: port)
                    let slow = try connection.request("GET", "/slow")
                    // The same connection, kept alive, serves the next request once the first is answered.
                    let stream = try connection.request("GET", "/stream")
                    return (slow, stream)
                }
                #expect(slow.text == "slow")
                #expect(stream.text == "1;2;3;")
            }
        }
    }
}
