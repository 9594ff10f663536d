#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The listening socket, created here rather than by libmicrohttpd so that a failure reports the real cause
/// (`EADDRINUSE`, `EADDRNOTAVAIL`, …) and the bound port is known before the daemon starts.
struct ListenSocket {
    let descriptor: Int32
    let port: Int
    let isIPv6: Bool

    /// Creates, binds and listens. `host` must be a numeric IPv4 or IPv6 address, or `localhost`; `"::"` also
    /// accepts IPv4.
    /// The backlog holds connections past the connection limit; the kernel caps it at `net.core.somaxconn`.
    static func open(host: String, port: Int, backlog: Int32 = 65_535) throws -> ListenSocket {
        guard (0...65535).contains(port) else {
            throw HTTPServerError.invalidConfiguration("port \(port) is outside 0...65535")
        }
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        if let ipv4 = parse(Self.loopbackAddress(for: host) ?? host, family: AF_INET, as: in_addr.self) {
            family = AF_INET
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                address.pointee.sin_family = sa_family_t(AF_INET)
                address.pointee.sin_port = in_port_t(UInt16(port)).bigEndian
                address.pointee.sin_addr = ipv4
            }
        } else if let ipv6 = parse(host, family: AF_INET6, as: in6_addr.self) {
            family = AF_INET6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                address.pointee.sin6_port = in_port_t(UInt16(port)).bigEndian
                address.pointee.sin6_addr = ipv6
            }
        } else {
            throw HTTPServerError.invalidConfiguration(
                "host \"\(host)\" is not a numeric IPv4 or IPv6 address (for example 127.0.0.1 or ::1)"
            )
        }

        func failure(_ step: String) -> HTTPServerError {
            .cannotListen(host: host, port: port, errno: errno, step: step)
        }
        let descriptor = socket(family, socketType, 0)
        guard descriptor >= 0 else { throw failure("socket()") }
        var keep = false
        defer { if !keep { close(descriptor) } }

        var on: Int32 = 1
        let off: Int32 = 0
        let size = socklen_t(MemoryLayout<Int32>.size)
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, size) == 0 else { throw failure("SO_REUSEADDR") }
        if family == AF_INET6 {
            // "::" means every address, IPv4-mapped included; any other IPv6 address is IPv6 only.
            let v6only = host == "::" ? off : on
            var value = v6only
            guard setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &value, size) == 0 else {
                throw failure("IPV6_V6ONLY")
            }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw failure("bind()") }
        guard listen(descriptor, backlog) == 0 else { throw failure("listen()") }

        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
        }
        guard named == 0 else { throw failure("getsockname()") }
        let boundPort = withUnsafeBytes(of: &actual) { raw in
            family == AF_INET
                ? raw.load(as: sockaddr_in.self).sin_port.bigEndian
                : raw.load(as: sockaddr_in6.self).sin6_port.bigEndian
        }
        keep = true
        return ListenSocket(descriptor: descriptor, port: Int(boundPort), isIPv6: family == AF_INET6)
    }

    /// Non-blocking (several libmicrohttpd workers race to accept) and not inherited by child processes.
    private static var socketType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    /// `localhost` and `*.localhost` name loopback (RFC 6761) and are bound as 127.0.0.1 without asking a
    /// resolver, so a hosts file cannot turn a loopback name into an address other machines reach.
    static func loopbackAddress(for host: String) -> String? {
        let lowered = host.lowercased()
        return lowered == "localhost" || lowered.hasSuffix(".localhost") ? "127.0.0.1" : nil
    }

    private static func parse<Address>(_ host: String, family: Int32, as: Address.Type) -> Address? {
        let storage = UnsafeMutablePointer<Address>.allocate(capacity: 1)
        defer { storage.deallocate() }
        return inet_pton(family, host, storage) == 1 ? storage.pointee : nil
    }
}
