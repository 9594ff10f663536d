import CMicroHTTPD
import Synchronization

/// libmicrohttpd's handle of an upgraded connection, which may cross threads: its one use, the close, is
/// serialized by ``UpgradedSocket``'s lock and made once.
struct UpgradeHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// A connection handed over after a `101 Switching Protocols` answer (``HTTPResponse/Body/upgrade(_:)``): its
/// socket, the bytes the client sent after the request that libmicrohttpd had already read, and the close.
///
/// libmicrohttpd still owns the descriptor: it must not be closed directly (a user may `dup` it and close its
/// copy), only through ``close()``, which hands it back; libmicrohttpd closes it and ends the exchange on its
/// next run. The server calls ``close()`` itself once the upgrade's closure returns, and at shutdown.
package final class UpgradedSocket: Sendable {
    /// The connected socket, non-blocking.
    package let descriptor: Int32
    /// What the client sent after its upgrade request and libmicrohttpd read already: the first bytes of the
    /// new protocol, to be taken before anything read from the socket.
    package let leftover: [UInt8]
    /// `nil` once closed.
    private let handle: Mutex<UpgradeHandle?>
    /// Without threads of its own, libmicrohttpd notices the close only when its loop runs it.
    private let loop: LoopWaker?

    init(descriptor: Int32, leftover: [UInt8], handle: UpgradeHandle, loop: LoopWaker?) {
        self.descriptor = descriptor
        self.leftover = leftover
        self.handle = Mutex(handle)
        self.loop = loop
    }

    /// Hands the socket back to libmicrohttpd, which closes it. Idempotent; the lock is held across the call
    /// so a close racing the daemon's stop (which frees the handle) finishes before the stop begins.
    package func close() {
        let closed = handle.withLock { handle -> Bool in
            guard let open = handle.take() else { return false }
            _ = yrden_mhd_upgrade_close(open.raw)
            return true
        }
        if closed { loop?.wake() }
    }

    package var isClosed: Bool { handle.withLock { $0 == nil } }
}
