import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A client's IP address (no port), kept as its bytes: read for every request, spelled out only when asked.
///
/// An IPv4 address and its IPv4-mapped IPv6 form are the same peer.
package struct PeerAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address as IPv6 (IPv4 mapped into `::ffff:0:0/96`), high and low halves in network order.
    let high: UInt64
    let low: UInt64

    /// The IPv4 address `a.b.c.d`.
    package init(ipv4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        high = 0
        low = 0xffff_0000_0000 | UInt64(a) << 24 | UInt64(b) << 16 | UInt64(c) << 8 | UInt64(d)
    }

    /// The IPv6 address of these 16 bytes.
    package init(ipv6 bytes: [UInt8]) {
        precondition(bytes.count == 16, "an IPv6 address has 16 bytes")
        high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The address in a socket address of family AF_INET or AF_INET6; `nil` for any other or none.
    init?(_ address: UnsafePointer<sockaddr>?) {
        guard let address else { return nil }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let raw = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            high = 0
            low = 0xffff_0000_0000 | UInt64(UInt32(bigEndian: raw))
        case AF_INET6:
            // Read in place: no array per request.
            (high, low) = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { bytes in
                    (
                        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                    )
                }
            }
        default:
            return nil
        }
    }

    /// The address written as text, IPv4 (`10.1.2.3`) or IPv6 (`2001:db8::1`, no brackets, no zone);
    /// `nil` for anything else.
    package init?(parsing text: some StringProtocol) {
        var bytes = [UInt8](repeating: 0, count: 16)
        let parsed = String(text).withCString { text in
            bytes.withUnsafeMutableBytes { buffer in
                if inet_pton(AF_INET, text, buffer.baseAddress) == 1 { return AF_INET }
                if inet_pton(AF_INET6, text, buffer.baseAddress) == 1 { return AF_INET6 }
                return -1
            }
        }
        switch parsed {
        case AF_INET: self.init(ipv4: bytes[0], bytes[1], bytes[2], bytes[3])
        case AF_INET6: self.init(ipv6: bytes)
        default: return nil
        }
    }

    var isIPv4: Bool { high == 0 && low >> 32 == 0xffff }

    /// `127.0.0.1`, or IPv6 as eight groups of hex (`0:0:0:0:0:0:0:1`; no `::` shortening, which nothing
    /// here needs).
    package var description: String {
        if isIPv4 {
            return [24, 16, 8, 0].map { String(low >> UInt64($0) & 0xff) }.joined(separator: ".")
        }
        let groups = [high, low].flatMap { half in
            [48, 32, 16, 0].map { String(half >> UInt64($0) & 0xffff, radix: 16) }
        }
        return groups.joined(separator: ":")
    }
}
