import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on libmicrohttpd that hands each request to an async handler.
///
/// libmicrohttpd's threads parse requests and write responses; they never wait for Swift. A complete request's
/// connection is suspended and its handler task started on the spot (``HandlerTasks``); the task resumes the
/// connection with its answer. Streamed responses work the same way: the connection sleeps (suspended, using no
/// CPU) until the writer has bytes for it.
///
/// The server knows nothing about what it serves; routing and protocols belong to the handler.
package final class HTTPServer: Service, Sendable {
    /// How long handlers that are still running at shutdown get to answer before their requests are answered 503.
    static let shutdownGracePeriod = 5.0
    /// How long the answers shutdown gives on its own (503) and the ends of streams get to reach their clients.
    static let abortFlushPeriod = 1.0

    private let core: ServerCore
    private let address: String
    private let logger: Logger

    /// The bound port; differs from the configured one when that was 0.
    package let port: Int

    /// Starts libmicrohttpd and binds the socket synchronously, so `port` is known at once (tests use port 0).
    /// Connections are accepted from here on; their requests wait for `run()`.
    ///
    /// - Throws: `HTTPServerError` naming the address when it cannot listen (address in use, not local, …) or
    ///   when a configuration value is out of range.
    package init(configuration: HTTPServerConfiguration, logger: Logger, handler: @escaping HTTPHandler) throws {
        try Self.validate(configuration)
        ignoreBrokenPipes
        let socket = try ListenSocket.open(host: configuration.host, port: configuration.port)
        let core = ServerCore(
            maxBodyBytes: configuration.maxBodyBytes,
            requestTimeout: configuration.requestTimeout,
            eventLoop: configuration.eventLoop,
            trustedProxies: configuration.trustedProxies,
            logger: logger,
            handler: handler
        )
        do {
            core.attach(try MHDDaemon.start(configuration: configuration, socket: socket, core: core))
            core.connections.start()
        } catch {
            close(socket.descriptor)
            throw error
        }
        self.core = core
        self.port = socket.port
        self.logger = logger
        self.address = HostPort(host: configuration.host, port: socket.port).description
        logger.info("HTTP server listening", metadata: ["yrden.http.address": "\(address)"])
    }

    deinit {
        // Never served, or `run()` was not awaited to the end: still no suspended connection may outlive us.
        core.beginShutdown()
        core.abortAll()
        core.stop()
    }

    /// Serves requests until graceful shutdown (ServiceLifecycle) or task cancellation. Then it stops taking work
    /// (new requests get 503; the listen socket closes when libmicrohttpd stops), ends open streams, gives running handlers up to five
    /// seconds to answer and their answers time to be sent, answers the rest 503, and stops libmicrohttpd.
    /// Requests that arrived before `run()` was called are served too.
    ///
    /// - Important: Returns only after every handler task and stream closure has returned; a closure that ignores
    ///   cancellation and never writes keeps `run()` waiting.
    /// - Throws: `HTTPServerError.alreadyRunning` when called a second time.
    package func run() async throws {
        try core.startServing()
        let core = self.core
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await core.waitForShutdown()
            } onCancel: {
                core.beginShutdown()
            }
        } onGracefulShutdown: {
            core.beginShutdown()
        }
        logger.info("HTTP server shutting down", metadata: ["yrden.http.address": "\(address)"])
        core.beginShutdown()
        await core.waitForDispatchedExchanges(seconds: Self.shutdownGracePeriod)
        core.abortAll()
        // Let the 503s just queued reach their clients; stopping the daemon closes connections mid-flight.
        await core.waitForDispatchedExchanges(seconds: Self.abortFlushPeriod)
        core.stop()
        core.handlers.cancelAll()
        await core.handlers.waitUntilAllReturned()
        logger.info("HTTP server stopped", metadata: ["yrden.http.address": "\(address)"])
    }

    private static func validate(_ configuration: HTTPServerConfiguration) throws {
        func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            if !condition { throw HTTPServerError.invalidConfiguration(message()) }
        }
        try check(configuration.threadPoolSize >= 1, "threadPoolSize must be at least 1")
        try check(configuration.maxBodyBytes >= 0, "maxBodyBytes must not be negative")
        try check(configuration.connectionTimeout >= 0, "connectionTimeout must not be negative")
        try check(configuration.requestTimeout > .zero, "requestTimeout must be positive")
        try check(configuration.connectionLimit >= 1, "connectionLimit must be at least 1")
    }
}

/// libmicrohttpd sends with `MSG_NOSIGNAL`, but a write to a departed client elsewhere in the process must not
/// kill it either; ignoring SIGPIPE once, process-wide, is what servers do.
private let ignoreBrokenPipes: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()
