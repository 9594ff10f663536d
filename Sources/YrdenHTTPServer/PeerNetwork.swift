/// A range of client addresses, `10.0.0.0/8` or `fd00::/8` (an address alone is a range of one): the proxies in
/// front of the gateway whose `X-Forwarded-For` it believes.
package struct PeerNetwork: Sendable, Hashable, CustomStringConvertible {
    private let base: PeerAddress
    /// Leading bits that must match, counted over the IPv6 form (an IPv4 `/8` is 104 bits here).
    private let prefixLength: Int
    package let description: String

    /// `ADDRESS` or `ADDRESS/BITS`, IPv4 (bits 0–32) or IPv6 (0–128); `nil` for anything else.
    package init?(parsing text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = PeerAddress(parsing: parts[0]) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        var bits = width
        if parts.count == 2 {
            guard let written = Int(parts[1]), (0...width).contains(written), parts[1].allSatisfy(\.isASCII) else {
                return nil
            }
            bits = written
        }
        base = address
        prefixLength = 128 - width + bits
        description = text
    }

    package func contains(_ peer: PeerAddress) -> Bool {
        Self.matches(base.high, peer.high, bits: min(prefixLength, 64))
            && Self.matches(base.low, peer.low, bits: max(prefixLength - 64, 0))
    }

    private static func matches(_ a: UInt64, _ b: UInt64, bits: Int) -> Bool {
        bits == 0 || (a ^ b) >> UInt64(64 - bits) == 0
    }
}
