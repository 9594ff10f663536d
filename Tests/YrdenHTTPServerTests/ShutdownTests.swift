import Foundation
import Logging
import ServiceLifecycle
import Testing
import YrdenHTTPServer

extension LiveServerTests {
    @Suite struct Shutdown {
        enum Trigger {
            case gracefulShutdown
            case cancellation
        }

        /// Opens an idle stream and starts a slow request, then shuts down and checks that the request is still
        /// answered, the stream ends, new connections are refused and `run()` returns.
        private func shutdownWithOpenWork(_ trigger: Trigger) async throws {
            let streamOpen = TestSignal()
            let slowStarted = TestSignal()
            let handler: HTTPHandler = { request in
                if request.path == "/slow" {
                    slowStarted.fire()
                    try? await Task.sleep(for: .milliseconds(300))
                    return .text(200, "finished")
                }
                return HTTPResponse(
                    status: 200,
                    body: .stream { writer in
                        try? await writer.write("hello\n")
                        streamOpen.fire()
                        while !Task.isCancelled {  // idle until shutdown cancels it
                            try? await Task.sleep(for: .seconds(60))
                        }
                    }
                )
            }
            let server = try HTTPServer(configuration: testConfiguration(), logger: testLogger, handler: handler)
            let port = server.port
            // ServiceLifecycle's own path: a ServiceGroup whose graceful shutdown reaches run().
            let serviceGroup = ServiceGroup(services: [server], logger: testLogger)

            async let streamEnd: [String] = onThread {
                let connection = try TestConnection(port: port)
                try connection.sendRequest("GET", "/stream")
                _ = try connection.readHead()
                var chunks: [String] = []
                while let chunk = try connection.readChunk() { chunks.append(String(decoding: chunk, as: UTF8.self)) }
                return chunks
            }
            async let slow = onThread { try TestConnection(port: port).request("GET", "/slow") }

            try await withThrowingTaskGroup(of: Void.self) { tasks in
                switch trigger {
                case .gracefulShutdown: tasks.addTask { try await serviceGroup.run() }
                case .cancellation: tasks.addTask { try await server.run() }
                }
                #expect(await streamOpen.wait())
                #expect(await slowStarted.wait())
                switch trigger {
                case .gracefulShutdown: await serviceGroup.triggerGracefulShutdown()
                case .cancellation: tasks.cancelAll()
                }
                try await tasks.waitForAll()
            }

            #expect(try await slow.text == "finished")
            #expect(try await streamEnd == ["hello\n"])
            let refused = try? await onThread { try TestConnection(port: port).request("GET", "/late") }
            #expect(refused == nil)
        }

        @Test func gracefulShutdownFinishesInFlightWorkAndEndsStreams() async throws {
            try await shutdownWithOpenWork(.gracefulShutdown)
        }

        @Test func cancellationFinishesInFlightWorkAndEndsStreams() async throws {
            try await shutdownWithOpenWork(.cancellation)
        }

        /// A handler that ignores cancellation outlives the grace period: its client gets 503 after about five
        /// seconds, libmicrohttpd is stopped with no connection left suspended, and the late answer is dropped.
        @Test func aHandlerPastTheGracePeriodIsAnswered503() async throws {
            let started = TestSignal()
            let release = TestSignal()
            let answered = TestSignal()
            let handler: HTTPHandler = { _ in
                started.fire()
                _ = await release.wait(seconds: 30)  // polls; deaf to cancellation
                answered.fire()
                return .text(200, "too late")
            }
            let server = try HTTPServer(configuration: testConfiguration(), logger: testLogger, handler: handler)
            let port = server.port
            let serviceGroup = ServiceGroup(services: [server], logger: testLogger)
            defer { release.fire() }
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await serviceGroup.run() }
                async let response = onThread { try TestConnection(port: port).request("GET", "/stuck") }
                #expect(await started.wait())
                await serviceGroup.triggerGracefulShutdown()
                let status = try await response.status
                #expect(status == 503)
                #expect(!answered.isFired)
                release.fire()
                try await tasks.waitForAll()
            }
            #expect(answered.isFired)
        }

        /// `run()` in a task that is already cancelled may never read its queue; a request waiting there is
        /// still answered (served or refused) and `run()` returns.
        @Test func aRequestQueuedWhenRunIsCancelledIsStillAnswered() async throws {
            let server = try HTTPServer(configuration: testConfiguration(), logger: testLogger, handler: echoHandler)
            let port = server.port
            async let response = onThread { try TestConnection(port: port).request("GET", "/queued") }
            try await Task.sleep(for: .milliseconds(200))  // the request now waits in the queue
            await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.cancelAll()
                tasks.addTask { try await server.run() }
                try? await tasks.waitForAll()
            }
            let status = try await response.status
            #expect(status == 503 || status == 200)
        }

        @Test func droppingAServerThatNeverRanIsSafe() async throws {
            let started = TestSignal()
            let handler: HTTPHandler = { _ in
                started.fire()
                return .text(200, "never")
            }
            var server: HTTPServer? = try HTTPServer(
                configuration: testConfiguration(),
                logger: testLogger,
                handler: handler
            )
            let port = server!.port
            async let pending = try? onThread { try TestConnection(port: port).request("GET", "/queued") }
            try await Task.sleep(for: .milliseconds(200))  // the request now waits, suspended, for run()
            server = nil
            #expect(server == nil)
            let response = await pending
            #expect(response == nil || response?.status == 503)
            #expect(!started.isFired)
        }
    }
}
