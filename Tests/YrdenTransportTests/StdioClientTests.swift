import Glibc
import Synchronization
import Testing
import YrdenProtocol
import YrdenTesting

@testable import YrdenTransport

/// The client over a real child process: small Python stdio servers with scripted behaviour.
@Suite struct StdioClientTests {
    /// Answers every request with its own params (echo), sends progress for method "progress", never answers
    /// method "hang", exits on method "die", and logs each method to stderr.
    static let server = #"""
        import json, sys, time
        for line in sys.stdin:
            msg = json.loads(line)
            if "id" not in msg:
                continue
            method = msg.get("method")
            print("got " + method, file=sys.stderr, flush=True)
            if method == "initialize":
                result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "t", "version": "1"}}
            elif method == "hang":
                continue
            elif method == "die":
                sys.exit(3)
            elif method == "progress":
                token = msg["params"]["_meta"]["progressToken"]
                for i in range(3):
                    print(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": i}}), flush=True)
                    time.sleep(0.05)
                result = {"done": True}
            else:
                result = msg.get("params") or {}
            print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
        """#

    private func connect(log: @escaping @Sendable (String) -> Void = { _ in }) throws -> (UpstreamClient, StdioChannel)
    {
        let box = Mutex<StdioChannel?>(nil)
        let client = try UpstreamClient(
            open: { handler throws(UpstreamError) in
                let channel = try StdioChannel(
                    command: StdioCommand(command: "python3", arguments: ["-u", "-c", Self.server]),
                    handler: handler
                )
                box.withLock { $0 = channel }
                return channel
            },
            log: log
        )
        return (client, box.withLock { $0! })
    }

    /// Sends every payload as its own `echo` request, all at once, and expects each answer to be its own payload.
    private func expectConcurrentEchoes(
        _ client: UpstreamClient,
        _ payloads: [JSONValue],
        timeout: Duration
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for payload in payloads {
                group.addTask {
                    let reply = try await client.request(
                        "echo",
                        params: payload,
                        options: RequestOptions(timeout: timeout)
                    )
                    #expect(try reply.get() == payload)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func handshakeAndEchoWithFreshIDs() async throws {
        let (client, _) = try connect()
        let handshake = try await client.initialize(
            clientInfo: ["name": "test"],
            capabilities: [:],
            timeout: .seconds(10)
        )
        #expect(handshake.protocolVersion == "2025-06-18")
        let reply = try await client.request(
            "echo",
            params: ["x": 1, "s": "a\nb"],
            options: RequestOptions(timeout: .seconds(10))
        )
        #expect(try reply.get() == ["x": 1, "s": "a\nb"])
        await client.close()
    }

    @Test func concurrentRequestsAreCorrelated() async throws {
        let (client, _) = try connect()
        try await expectConcurrentEchoes(client, (0..<50).map { ["n": .int($0)] }, timeout: .seconds(10))
        await client.close()
    }

    @Test func progressReachesTheRequestThatAskedForIt() async throws {
        let (client, _) = try connect()
        let seen = Mutex<[Int]>([])
        let reply = try await client.request(
            "progress",
            params: [:],
            options: RequestOptions(
                timeout: .seconds(10),
                onProgress: { params in
                    seen.withLock { $0.append(params["progress"]?.intValue ?? -1) }
                }
            )
        )
        #expect(try reply.get() == ["done": true])
        #expect(seen.withLock { $0 } == [0, 1, 2])
        await client.close()
    }

    @Test func aDyingServerFailsCallsInFlightAtOnce() async throws {
        // The server says on stderr which call it got: `die` goes once `hang` is in flight there (a fixed
        // sleep let `die` overtake it on a loaded machine, and `hang` then failed as never sent).
        let (gotHang, sawHang) = AsyncStream.makeStream(of: Void.self)
        let (client, _) = try connect { line in if line == "got hang" { sawHang.finish() } }
        let started = ContinuousClock.now
        async let hanging = client.request("hang", params: nil, options: RequestOptions(timeout: .seconds(60)))
        #expect(await withDeadline { for await _ in gotHang {} } != nil, "the server never got the hanging call")
        _ = try? await client.request("die", params: nil, options: RequestOptions(timeout: .seconds(60)))
        do {
            _ = try await hanging
            Issue.record("a call to a dead server succeeded")
        } catch {
            #expect((error as? UpstreamError)?.kind == .process)
            #expect((error as? UpstreamError)?.message.contains("exited with status 3") == true)
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        var events: [UpstreamEvent] = []
        for await event in client.events { events.append(event) }
        guard case .closed = events.last else {
            Issue.record("no closed event")
            return
        }
        // Later calls fail immediately too.
        await #expect(throws: UpstreamError.self) {
            _ = try await client.request("echo", params: nil, options: RequestOptions(timeout: .seconds(60)))
        }
        await client.close()
    }

    @Test func overdueRequestsTimeOut() async throws {
        let (client, _) = try connect()
        let outcome = await withTaskGroup(of: UpstreamError.Kind?.self) { group in
            group.addTask {
                do {
                    _ = try await client.request(
                        "hang",
                        params: nil,
                        options: RequestOptions(timeout: .milliseconds(100))
                    )
                    return nil
                } catch {
                    return (error as? UpstreamError)?.kind
                }
            }
            // The supervisor's sweep, as in production: however late the request registers, it expires.
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(50))
                    client.expireOverdueRequests()
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(outcome == .timeout)
        await client.close()
    }

    @Test func cancellingAHandleFailsTheCall() async throws {
        let (client, _) = try connect()
        let handle = CallHandle()
        async let hanging = client.request(
            "hang",
            params: nil,
            options: RequestOptions(timeout: .seconds(60), handle: handle)
        )
        try await Task.sleep(for: .milliseconds(200))
        handle.cancel(reason: "test")
        do {
            _ = try await hanging
            Issue.record("a cancelled call succeeded")
        } catch {
            #expect((error as? UpstreamError)?.kind == .cancelled)
        }
        await client.close()
    }

    @Test func stderrLinesReachTheLog() async throws {
        let lines = Mutex<[String]>([])
        let (client, _) = try connect { line in lines.withLock { $0.append(line) } }
        _ = try await client.request("echo", params: nil, options: RequestOptions(timeout: .seconds(10)))
        for _ in 0..<100 where !lines.withLock({ $0.contains("got echo") }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(lines.withLock { $0.contains("got echo") })
        await client.close()
    }

    @Test func closeReapsTheChild() async throws {
        let (client, channel) = try connect()
        let pid = channel.processID
        await client.close()
        #expect(kill(pid, 0) != 0)  // reaped: the pid no longer exists
    }

    /// Far more than a pipe holds: the rest waits for the child to read, then goes in order.
    @Test func framesLargerThanThePipeArriveWhole() async throws {
        let (client, _) = try connect()
        let big = String(repeating: "x", count: 4 << 20)
        let payloads: [JSONValue] = (0..<3).map { ["n": .int($0), "s": .string(big)] }
        try await expectConcurrentEchoes(client, payloads, timeout: .seconds(30))
        await client.close()
    }

    /// Many senders at once, small frames among ones larger than the pipe: whoever writes carries the others'
    /// frames along, the reactor takes over when the pipe is full, and no frame is cut into another.
    @Test func concurrentSmallAndLargeFramesArriveWholeAndInOrderOfTheirOwn() async throws {
        let (client, _) = try connect()
        let large = String(repeating: "y", count: 300 << 10)
        let payloads: [JSONValue] = (0..<120).map {
            ["n": .int($0), "s": .string($0 % 10 == 0 ? large : "frame \($0)")]
        }
        try await expectConcurrentEchoes(client, payloads, timeout: .seconds(30))
        await client.close()
    }

    /// Frames the loop's own thread sends wait for the end of its pass and go out in one write: all of them, in
    /// the order they were sent, one larger than the pipe among them, even with a sender on another thread.
    @Test func framesSentFromTheLoopGoOutTogetherAndInOrder() async throws {
        let lines = Mutex<[String]>([])
        // Signalled by the log line that completes the 41 answers: the test waits for that moment, not a poll.
        let (allGot, gotLast) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (client, channel) = try connect { line in
            let count = lines.withLock { lines in
                lines.append(line)
                return lines.filter { $0.hasPrefix("got ") }.count
            }
            if count >= 41 { gotLast.yield() }
        }
        let large = String(repeating: "z", count: 200 << 10)
        let frame = { @Sendable (method: String) in
            Array(#"{"jsonrpc":"2.0","id":"\#(method)","method":"\#(method)","params":{"s":"\#(large)"}}"#.utf8)
        }
        let reactor = try ProcessReactor.running()
        reactor.performAndWait {
            for index in 0..<40 { try? channel.send(frame("loop\(index)")) }
        }
        try channel.send(frame("other"))
        let expected = (0..<40).map { "got loop\($0)" }
        // 8 MB through a Python child: generous, since the limit only matters when frames are lost.
        _ = await withDeadline(.seconds(120)) { for await _ in allGot { return } }
        let received = lines.withLock { $0.filter { $0.hasPrefix("got loop") } }
        #expect(received == expected)
        #expect(lines.withLock { $0.contains("got other") })
        await client.close()
    }

    @Test func aMissingCommandFailsClearly() {
        do {
            _ = try StdioChannel(
                command: StdioCommand(command: "/nonexistent/server"),
                handler: UpstreamChannelHandler(frame: { _ in }, closed: { _ in }, log: { _ in })
            )
            Issue.record("spawned a missing command")
        } catch {
            #expect(error.message.contains("/nonexistent/server"))
        }
    }
}
