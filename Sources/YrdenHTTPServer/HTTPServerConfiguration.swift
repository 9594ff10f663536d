#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the HTTP server listens and how much it accepts.
///
/// Every limit has a default that suits a gateway on a small machine; the gateway's configuration overrides them.
package struct HTTPServerConfiguration: Sendable {
    /// The address to bind: an IPv4 or IPv6 literal. `"0.0.0.0"` and `"::"` listen on every interface
    /// (`"::"` accepts IPv4 clients too).
    package var host: String
    /// The TCP port; `0` asks the kernel for a free one (read it back from `HTTPServer.port`).
    package var port: Int
    /// libmicrohttpd worker threads. Each runs its own epoll loop, so one per core keeps every core busy.
    /// Ignored with an `eventLoop`.
    package var threadPoolSize: Int
    /// The largest request body accepted. Bigger bodies are answered 413 without being buffered.
    package var maxBodyBytes: Int
    /// Seconds of inactivity after which libmicrohttpd closes a connection (`0` never closes): a client that
    /// stops reading its answer. Suspended connections (a handler still running, an idle stream) do not time out.
    package var connectionTimeout: Int
    /// How long a connection may wait for a complete request: from being opened or its last answer, through
    /// headers and body. Idle keep-alive connections and clients that trickle bytes in are closed past it.
    package var requestTimeout: Duration
    /// The most connections served at once; libmicrohttpd stops accepting beyond it (they wait in the listen
    /// backlog). Lowered at start to what the open-file limit leaves room for (see `OpenFileLimit`).
    package var connectionLimit: Int
    /// A loop to serve on instead of libmicrohttpd's own threads (`nil`: libmicrohttpd runs `threadPoolSize`).
    package var eventLoop: (any HTTPEventLoop)?
    /// Proxies whose `X-Forwarded-For` names the client (``ForwardedClient``); none by default, so a header a
    /// client writes itself is never believed.
    package var trustedProxies: [PeerNetwork]

    package init(
        host: String = "127.0.0.1",
        port: Int = 8750,
        threadPoolSize: Int = HTTPServerConfiguration.activeCores,
        maxBodyBytes: Int = 16 << 20,
        connectionTimeout: Int = 60,
        requestTimeout: Duration = .seconds(30),
        connectionLimit: Int = 32_768,
        eventLoop: (any HTTPEventLoop)? = nil,
        trustedProxies: [PeerNetwork] = []
    ) {
        self.host = host
        self.port = port
        self.threadPoolSize = threadPoolSize
        self.maxBodyBytes = maxBodyBytes
        self.connectionTimeout = connectionTimeout
        self.requestTimeout = requestTimeout
        self.connectionLimit = connectionLimit
        self.eventLoop = eventLoop
        self.trustedProxies = trustedProxies
    }

    /// The number of cores the process may run on right now (at least 1).
    package static var activeCores: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
