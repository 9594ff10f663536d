import Foundation
import Testing
import YrdenHTTPServer

/// Tests that run a real server on a loopback port. They run one at a time: the idle-stream test measures the
/// whole process's CPU time, and a 2-core machine is easily loaded.
@Suite(.serialized)
struct LiveServerTests {}

/// Answers POST with its body, and anything else with a line describing the request.
let echoHandler: HTTPHandler = { request in
    if request.method == "POST" {
        return HTTPResponse(
            status: 200,
            headers: ["Content-Type": "application/octet-stream"],
            body: .bytes(request.body)
        )
    }
    let query = request.query.keys.sorted().map { "\($0)=\(request.query[$0]!)" }.joined(separator: "&")
    let custom = request.headers["x-custom-header"] ?? "-"
    return .text(200, "\(request.method) \(request.path) ?\(query) custom=\(custom)")
}

extension LiveServerTests {
    @Suite struct Basics {
        @Test func getAndPostAreServed() async throws {
            try await withServer(handler: echoHandler) { server in
                let port = server.port
                let body = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
                let (get, post) = try await onThread {
                    let connection = try TestConnection(port: port)
                    let get = try connection.request("GET", "/hello")
                    let post = try connection.request("POST", "/upload", body: body)
                    return (get, post)
                }
                #expect(get.status == 200)
                #expect(get.text == "GET /hello ? custom=-")
                #expect(get.header("Content-Length") == "\(get.body.count)")
                #expect(post.status == 200)
                #expect(post.body.count == body.count)
                #expect(post.body == body)
            }
        }

        /// A small request's handler starts on libmicrohttpd's own thread (no pool thread to wake); a large body
        /// is parsed on the global executor instead, so it cannot hold up that thread's other connections.
        @Test func smallRequestsStartOnTheServersThreadAndLargeOnesOnThePool() async throws {
            let threadName: HTTPHandler = { _ in
                .text(200, (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?")
            }
            try await withServer(handler: threadName) { server in
                let port = server.port
                let (small, large) = try await onThread {
                    let connection = try TestConnection(port: port)
                    let small = try connection.request("POST", "/small", body: Array(repeating: 0x61, count: 100))
                    let large = try connection.request("POST", "/large", body: Array(repeating: 0x61, count: 1 << 20))
                    return (small, large)
                }
                #expect(small.text.hasPrefix("MHD"))
                #expect(!large.text.hasPrefix("MHD"))
            }
        }

        @Test func queryAndHeadersAreDecodedAndCaseInsensitive() async throws {
            try await withServer(handler: echoHandler) { server in
                let port = server.port
                let response = try await onThread {
                    try TestConnection(port: port).request(
                        "GET",
                        "/a%20b/c?name=hello%20world&flag&n=1&n=2",
                        headers: [("X-CUSTOM-Header", "Value One")]
                    )
                }
                #expect(response.status == 200)
                #expect(response.text == "GET /a b/c ?flag=&n=1&name=hello world custom=Value One")
            }
        }

        @Test func responseHeadersAndStatusArePassedThrough() async throws {
            let handler: HTTPHandler = { _ in
                HTTPResponse(status: 404, headers: [("X-One", "1"), ("X-Two", "2")], body: .bytes([]))
            }
            try await withServer(handler: handler) { server in
                let port = server.port
                let response = try await onThread { try TestConnection(port: port).request("DELETE", "/missing") }
                #expect(response.status == 404)
                #expect(response.header("x-one") == "1")
                #expect(response.header("X-TWO") == "2")
                #expect(response.header("Content-Length") == "0")
            }
        }

        @Test func bodiesOverTheLimitAreAnswered413() async throws {
            let calls = Counter()
            let handler: HTTPHandler = { request in
                calls.increment()
                return await echoHandler(request)
            }
            try await withServer(testConfiguration(maxBodyBytes: 1024), handler: handler) { server in
                let port = server.port
                let (declared, chunked, fits) = try await onThread {
                    // Refused up front from Content-Length, before the body is read.
                    let declared = try TestConnection(port: port).request(
                        "POST",
                        "/big",
                        body: [UInt8](repeating: 7, count: 4096)
                    )
                    // A chunked body has no length: refused once it grows past the limit, answered after it.
                    let connection = try TestConnection(port: port)
                    try connection.send("POST /big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                    let piece = String(repeating: "z", count: 1000)
                    for _ in 0..<3 { try connection.send("3e8\r\n\(piece)\r\n") }
                    try connection.send("0\r\n\r\n")
                    let chunked = try connection.readResponse()
                    // Exactly at the limit is fine.
                    let fits = try TestConnection(port: port).request(
                        "POST",
                        "/ok",
                        body: [UInt8](repeating: 1, count: 1024)
                    )
                    return (declared, chunked, fits)
                }
                #expect(declared.status == 413)
                #expect(chunked.status == 413)
                #expect(fits.status == 200)
                #expect(fits.body.count == 1024)
                #expect(calls.count == 1)
            }
        }

        /// `maxBodyBytes: Int.max` once crashed the process on the first POST (overflow in the size check).
        @Test func aBodyLimitOfIntMaxServesPosts() async throws {
            try await withServer(testConfiguration(maxBodyBytes: .max), handler: echoHandler) { server in
                let port = server.port
                let response = try await onThread {
                    try TestConnection(port: port).request("POST", "/echo", body: [UInt8](repeating: 5, count: 3000))
                }
                #expect(response.status == 200)
                #expect(response.body.count == 3000)
            }
        }

        @Test(arguments: [1, 2])
        func manyConcurrentKeepAliveRequestsAreAllAnsweredCorrectly(threads: Int) async throws {
            var configuration = testConfiguration()
            configuration.threadPoolSize = threads
            try await withServer(configuration, handler: echoHandler) { server in
                let port = server.port
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for connectionIndex in 0..<20 {
                        group.addTask {
                            try await onThread {
                                let connection = try TestConnection(port: port)
                                var correct = 0
                                for requestIndex in 0..<10 {
                                    let payload = Array("c\(connectionIndex)-r\(requestIndex)".utf8)
                                    let response = try connection.request("POST", "/echo", body: payload)
                                    if response.status == 200 && response.body == payload { correct += 1 }
                                }
                                return correct
                            }
                        }
                    }
                    var total = 0
                    for try await correct in group { total += correct }
                    #expect(total == 200)
                }
            }
        }

        @Test func aSlowHandlerDoesNotHoldUpOtherRequests() async throws {
            let release = TestSignal()
            let events = EventLog()
            let handler: HTTPHandler = { request in
                if request.path == "/slow" {
                    events.record("slow started")
                    try? await Task.sleep(for: .milliseconds(50))
                    _ = await release.wait()  // until a fast request has been answered
                    return .text(200, "slow")
                }
                return .text(200, "fast")
            }
            try await withServer(handler: handler) { server in
                let port = server.port
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        let response = try await onThread { try TestConnection(port: port).request("GET", "/slow") }
                        #expect(response.text == "slow")
                        events.record("slow answered")
                    }
                    #expect(await TestSignal.waitFor { events.time(of: "slow started") != nil })
                    for _ in 0..<5 {
                        let fast = try await onThread { try TestConnection(port: port).request("GET", "/fast") }
                        #expect(fast.text == "fast")
                    }
                    events.record("fast answered")
                    release.fire()
                    try await group.waitForAll()
                }
                let fast = try #require(events.time(of: "fast answered"))
                let slow = try #require(events.time(of: "slow answered"))
                #expect(fast < slow)
            }
        }

        @Test func requestsThatArriveBeforeRunAreServed() async throws {
            let server = try HTTPServer(configuration: testConfiguration(), logger: testLogger, handler: echoHandler)
            let port = server.port
            try await withThrowingTaskGroup(of: Void.self) { group in
                let answered = TestSignal()
                group.addTask {
                    let response = try await onThread { try TestConnection(port: port).request("GET", "/early") }
                    #expect(response.status == 200)
                    answered.fire()
                }
                // Give the request time to reach the server and wait in the queue before anyone serves it.
                try await Task.sleep(for: .milliseconds(200))
                #expect(!answered.isFired)
                group.addTask { try await server.run() }
                #expect(await answered.wait())
                group.cancelAll()
            }
        }

        @Test func aPortInUseFailsWithTheAddressInTheError() async throws {
            let first = try HTTPServer(configuration: testConfiguration(), logger: testLogger, handler: echoHandler)
            var configuration = testConfiguration()
            configuration.port = first.port
            let error = #expect(throws: HTTPServerError.self) {
                _ = try HTTPServer(configuration: configuration, logger: testLogger, handler: echoHandler)
            }
            #expect(error?.shortDescription == "cannotListen")
            #expect(error?.description.contains("127.0.0.1:\(first.port)") == true)
            #expect(error?.description.contains("in use") == true)
        }

        @Test func aHostThatIsNotAnAddressIsRejected() {
            var configuration = testConfiguration()
            configuration.host = "gateway.example"  // only `localhost` is bound without a resolver
            #expect(throws: HTTPServerError.invalidConfiguration("")) {
                _ = try HTTPServer(configuration: configuration, logger: testLogger, handler: echoHandler)
            }
        }

        @Test func ipv6LoopbackAndDualStackAreServed() async throws {
            for host in ["::1", "::"] {
                var configuration = testConfiguration()
                configuration.host = host
                try await withServer(configuration, handler: echoHandler) { server in
                    let port = server.port
                    let response = try await onThread {
                        try TestConnection(port: port, host: "::1").request("GET", "/v6")
                    }
                    #expect(response.status == 200)
                    if host == "::" {
                        let v4 = try await onThread { try TestConnection(port: port).request("GET", "/v4") }
                        #expect(v4.status == 200)
                    }
                }
            }
        }

        @Test func onlyOneRunServes() async throws {
            let server = try HTTPServer(configuration: testConfiguration(), logger: testLogger, handler: echoHandler)
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do {
                            try await server.run()
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                // Whichever call came second fails at once; cancelling then ends the one that serves.
                var outcomes = [await group.next()!]
                group.cancelAll()
                outcomes.append(await group.next()!)
                return outcomes
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(outcomes.count == 2)
        }
    }
}

extension TestSignal {
    /// Polls `condition` until it holds; false if `seconds` pass first.
    static func waitFor(seconds: Double = 20, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
