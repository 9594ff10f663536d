import NIOCore
import NIOSSL
import Synchronization

/// The connection pools of every Streamable HTTP upstream, one per origin, shared by the channels to it (a
/// server's shared session and its users' own sessions alike), on the shared HTTP client's event loops.
///
/// A pool is made on first use and kept: there is one per origin the config names, and its idle connections
/// close by themselves.
package final class UpstreamHTTPPools: Sendable {
    private let group: any EventLoopGroup
    private let tls: NIOSSLContext?
    private let pools = Mutex<[UpstreamOrigin: UpstreamHTTPPool]>([:])

    /// `tls` verifies `https://` servers (the gateway's ``UpstreamTrust``); without it they go through
    /// AsyncHTTPClient.
    package init(group: any EventLoopGroup, tls: NIOSSLContext?) {
        self.group = group
        self.tls = tls
    }

    /// The pool for `origin`; `nil` for an `https://` one when no TLS context was given.
    func pool(for origin: UpstreamOrigin) -> UpstreamHTTPPool? {
        if origin.secure, tls == nil { return nil }
        return pools.withLock { pools in
            if let pool = pools[origin] { return pool }
            let pool = UpstreamHTTPPool(origin: origin, group: group, tls: tls)
            pools[origin] = pool
            return pool
        }
    }
}
