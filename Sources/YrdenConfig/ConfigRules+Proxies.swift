/// `gateway.trustedProxies`: the proxies in front of the gateway whose `X-Forwarded-For` names the client.
extension ConfigRules {
    /// `ADDRESS` or `ADDRESS/BITS`: IPv4 with 0–32 bits, IPv6 with 0–128.
    static func checkProxyNetwork(_ text: String) -> Finding? {
        let fix = "write an address or a network, e.g. \"10.0.0.0/8\", \"127.0.0.1\" or \"fd00::/8\""
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let width: Int
        if ListenAddress.ipv4Octets(String(parts[0])) != nil {
            width = 32
        } else if ListenAddress.isIPv6(parts[0]) {
            width = 128
        } else {
            return Finding(message: "\(text.quoted) is not an IP address or network", fix: fix)
        }
        if parts.count == 2 {
            guard parts[1].allSatisfy(\.isASCIIDigit), let bits = Int(parts[1]), (0...width).contains(bits) else {
                return Finding(message: "\(text.quoted) has a prefix length outside 0–\(width)", fix: fix)
            }
        }
        return nil
    }
}
