import Foundation
import Synchronization
import Testing
import YrdenHTTPServer

extension LiveServerTests {
    @Suite struct Streaming {
        @Test func chunksReachTheClientAsTheyAreWritten() async throws {
            let events = EventLog()
            let handler: HTTPHandler = { _ in
                HTTPResponse(
                    status: 200,
                    headers: ["Content-Type": "text/event-stream"],
                    body: .stream { writer in
                        for index in 1...3 {
                            if index > 1 { try? await Task.sleep(for: .milliseconds(100)) }
                            events.record("write \(index)")
                            try? await writer.write("data: \(index)\n\n")
                        }
                    }
                )
            }
            try await withServer(handler: handler) { server in
                let port = server.port
                let chunks = try await onThread {
                    let connection = try TestConnection(port: port)
                    try connection.sendRequest("GET", "/events")
                    let head = try connection.readHead()
                    #expect(head.status == 200)
                    #expect(head.headers.contains { $0.0.lowercased() == "transfer-encoding" && $0.1 == "chunked" })
                    var chunks: [String] = []
                    while let chunk = try connection.readChunk() {
                        chunks.append(String(decoding: chunk, as: UTF8.self))
                        events.record("received \(chunks.count)")
                    }
                    return chunks
                }
                #expect(chunks.joined() == "data: 1\n\ndata: 2\n\ndata: 3\n\n")
                let firstArrived = try #require(events.time(of: "received 1"))
                let lastWritten = try #require(events.time(of: "write 3"))
                #expect(firstArrived < lastWritten)
            }
        }

        /// An idle stream must leave its connection suspended, not have libmicrohttpd poll the reader in a loop
        /// (which burns a whole core). The assertion is on this server's libmicrohttpd threads, because suites of
        /// other targets may run in this process at the same time; the process total is reported alongside.
        @Test func anIdleStreamUsesNoCPU() async throws {
            let finish = TestSignal()
            let handler: HTTPHandler = { _ in
                HTTPResponse(
                    status: 200,
                    body: .stream { writer in
                        try? await writer.write("first\n")
                        _ = await finish.wait(seconds: 30)
                        try? await writer.write("last\n")
                    }
                )
            }
            let threadsBefore = ThreadCPU.libmicrohttpdThreads()
            try await withServer(handler: handler) { server in
                let port = server.port
                let received = TestSignal()
                async let body: [String] = onThread {
                    let connection = try TestConnection(port: port)
                    try connection.sendRequest("GET", "/idle")
                    _ = try connection.readHead()
                    var chunks: [String] = []
                    while let chunk = try connection.readChunk() {
                        chunks.append(String(decoding: chunk, as: UTF8.self))
                        received.fire()
                    }
                    return chunks
                }
                #expect(await received.wait())
                let serverThreads = ThreadCPU.libmicrohttpdThreads().subtracting(threadsBefore)
                #expect(!serverThreads.isEmpty)
                let serverBefore = ThreadCPU.seconds(serverThreads)
                let processBefore = processCPUTime()
                try await Task.sleep(for: .seconds(1))
                let serverUsed = ThreadCPU.seconds(serverThreads) - serverBefore
                let processUsed = processCPUTime() - processBefore
                finish.fire()
                #expect(try await body == ["first\n", "last\n"])
                #expect(
                    serverUsed < 0.3,
                    "libmicrohttpd threads used \(serverUsed) s of CPU in 1 s (whole process: \(processUsed) s)"
                )
            }
        }

        @Test func aDepartedClientMakesWriteThrowAndCancelsTheWriter() async throws {
            let writeFailed = TestSignal()
            let sawCancellation = TestSignal()
            let handler: HTTPHandler = { _ in
                HTTPResponse(
                    status: 200,
                    body: .stream { writer in
                        do {
                            while true {
                                try await writer.write("tick\n")
                                try? await Task.sleep(for: .milliseconds(100))
                            }
                        } catch {
                            writeFailed.fire()
                        }
                        // The task is cancelled too: this sleep ends early instead of lasting 30 s.
                        try? await Task.sleep(for: .seconds(30))
                        if Task.isCancelled { sawCancellation.fire() }
                    }
                )
            }
            try await withServer(handler: handler) { server in
                let port = server.port
                try await onThread {
                    let connection = try TestConnection(port: port)
                    try connection.sendRequest("GET", "/ticks")
                    _ = try connection.readHead()
                    _ = try connection.readChunk()
                    connection.close()
                }
                #expect(await writeFailed.wait(seconds: 15))
                #expect(await sawCancellation.wait(seconds: 15))
            }
        }

        @Test func aSlowReaderHoldsTheWriterBack() async throws {
            let megabyte = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) }
            let total = 64
            let written = Mutex(0)
            let handler: HTTPHandler = { _ in
                HTTPResponse(
                    status: 200,
                    body: .stream { writer in
                        for _ in 0..<total {
                            guard (try? await writer.write(megabyte)) != nil else { return }
                            written.withLock { $0 += 1 }
                        }
                    }
                )
            }
            try await withServer(handler: handler) { server in
                let port = server.port
                let connection = try await onThread { () -> UncheckedBox<TestConnection> in
                    let connection = try TestConnection(port: port)
                    try connection.sendRequest("GET", "/bulk")
                    _ = try connection.readHead()
                    return UncheckedBox(connection)
                }
                // The client reads nothing for a while; the writer must stall well short of the whole body
                // (kernel socket buffers hold a few MiB, the server queues about 1 MiB more).
                try await Task.sleep(for: .milliseconds(500))
                let beforeReading = written.withLock { $0 }
                #expect(beforeReading < 40, "the writer queued \(beforeReading) MiB for a client that read nothing")
                let body = try await onThread {
                    var body: [UInt8] = []
                    while let chunk = try connection.value.readChunk() { body += chunk }
                    return body
                }
                #expect(body.count == total << 20)
                #expect(body.prefix(1 << 20).elementsEqual(megabyte))
                #expect(body.suffix(1 << 20).elementsEqual(megabyte))
            }
        }
    }
}

/// Moves a non-Sendable value between the test task and a client thread that use it one after the other.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
