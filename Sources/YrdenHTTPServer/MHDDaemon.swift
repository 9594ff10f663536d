import CMicroHTTPD
import Logging

/// Starts libmicrohttpd on an already-listening socket with the server's threading model.
enum MHDDaemon {
    /// Suspend/resume, so a request can wait for Swift without holding a libmicrohttpd thread, and a stream can
    /// idle without polling; upgrades (a WebSocket takes its socket over); either internal polling threads (a pool of `threadPoolSize` epoll loops) or, with an
    /// `eventLoop`, none: the loop runs libmicrohttpd whenever its epoll descriptor is ready or its timeout is due.
    static func start(
        configuration: HTTPServerConfiguration,
        socket: ListenSocket,
        core: ServerCore
    ) throws -> DaemonHandle {
        let loop = configuration.eventLoop
        var flags = MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_ALLOW_UPGRADE.rawValue
        if loop == nil { flags |= MHD_USE_INTERNAL_POLLING_THREAD.rawValue }
        #if os(Linux)
        flags |= MHD_USE_EPOLL.rawValue
        #else
        flags |= MHD_USE_AUTO.rawValue
        #endif
        if socket.isIPv6 {
            flags |= configuration.host == "::" ? MHD_USE_DUAL_STACK.rawValue : MHD_USE_IPv6.rawValue
        }
        if core.logger.logLevel <= .debug {
            flags |= MHD_USE_ERROR_LOG.rawValue
        }

        // The core outlives the daemon: `HTTPServer` keeps it and stops the daemon before letting go of it.
        let cls = Unmanaged.passUnretained(core).toOpaque()
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .LISTEN_SOCKET, value: Int(socket.descriptor), ptr_value: nil),
            MHD_OptionItem(
                option: .CONNECTION_TIMEOUT,
                value: max(0, configuration.connectionTimeout),
                ptr_value: nil
            ),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: connectionLimit(configuration), ptr_value: nil),
            yrden_mhd_option_notify_completed(requestCompleted, cls),
            yrden_mhd_option_notify_connection(connectionNotified, cls),
        ]
        if loop == nil, configuration.threadPoolSize > 1 {
            options.append(
                MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threadPoolSize, ptr_value: nil)
            )
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))

        let daemon = options.withUnsafeMutableBufferPointer { options in
            yrden_mhd_start_daemon(UInt32(flags), UInt16(socket.port), accessHandler, cls, options.baseAddress!)
        }
        guard let daemon else {
            throw HTTPServerError.daemonStartFailed(host: configuration.host, port: socket.port)
        }
        guard let loop else { return DaemonHandle(raw: daemon) }
        let handle = DaemonHandle(raw: daemon, loop: loop, descriptor: yrden_mhd_epoll_fd(daemon))
        do {
            guard handle.descriptor >= 0 else {
                throw HTTPServerError.daemonStartFailed(host: configuration.host, port: socket.port)
            }
            try loop.drive(handle.descriptor) { handle.turn() }
        } catch {
            MHD_stop_daemon(daemon)
            throw error
        }
        return handle
    }

    /// The configured limit, lowered to what the open-file limit leaves room for: past it, `accept` fails and
    /// libmicrohttpd would spin on a listen socket it cannot drain.
    static func connectionLimit(_ configuration: HTTPServerConfiguration) -> Int {
        min(configuration.connectionLimit, OpenFileLimit.connectionCapacity(openFiles: OpenFileLimit.current))
    }
}
