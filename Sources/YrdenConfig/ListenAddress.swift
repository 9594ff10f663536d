#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `HOST:PORT` listen address, IPv6 in brackets (`[::1]:8750`).
///
/// Parsed by hand rather than by a resolver: the config is checked offline, and the only questions are whether
/// the text is well formed and whether the host is loopback (which decides if an admin token is required).
/// Not by FoundationEssentials' `URL` either: this is no URL (no scheme, userinfo, path or percent escapes), and
/// `URL` takes any text in brackets as a host (`[zz]`) and reads a port too large for an `Int` as no port. An
/// IPv6 literal is checked by the C library's own parser (`inet_pton`), the one that reads it to bind.
package struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// Without brackets.
    package var host: String
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    package var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Why a listen string is malformed, as message and fix.
    package struct Failure: Error, Sendable, Hashable {
        package var message: String
        package var fix: String
    }

    private static let exampleFix = "write it as HOST:PORT, e.g. 127.0.0.1:8750 or [::1]:8750"

    package static func parse(_ text: String) -> Result<ListenAddress, Failure> {
        let quoted = text.quoted
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                return .failure(Failure(message: "\(quoted) has no closing \"]\"", fix: exampleFix))
            }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else {
                return .failure(Failure(message: "\(quoted) has no port", fix: exampleFix))
            }
            portText = rest.dropFirst()
            guard isIPv6(host) else {
                return .failure(Failure(message: "\"\(host)\" is not an IPv6 address", fix: exampleFix))
            }
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                return .failure(Failure(message: "\(quoted) is not HOST:PORT", fix: exampleFix))
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") {
                return .failure(
                    Failure(
                        message: "\(quoted) looks like an IPv6 address without brackets",
                        fix: "put IPv6 addresses in brackets, e.g. [::1]:8750"
                    )
                )
            }
            guard isHostName(host) else {
                return .failure(Failure(message: "\"\(host)\" is not a host name or address", fix: exampleFix))
            }
        }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit), let port = Int(portText)
        else {
            return .failure(Failure(message: "\"\(portText)\" in \(quoted) is not a port number", fix: exampleFix))
        }
        guard port <= 65535 else {
            return .failure(
                Failure(message: "port \(port) is out of range", fix: "use a port from 0 to 65535 (0 picks a free one)")
            )
        }
        return .success(ListenAddress(host: String(host), port: port))
    }

    /// Loopback hosts: `localhost` (and `*.localhost`), `127.0.0.0/8`, `::1`, and `::ffff:127.x.y.z`.
    package static func isLoopback(host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") { return true }
        if let octets = ipv4Octets(lowered) { return octets[0] == 127 }
        if lowered == "::1" || lowered == "0:0:0:0:0:0:0:1" { return true }
        if lowered.hasPrefix("::ffff:"), let octets = ipv4Octets(String(lowered.dropFirst(7))) {
            return octets[0] == 127
        }
        return false
    }

    static func ipv4Octets(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit), let value = Int(part), value <= 255
            else { return nil }
            octets.append(value)
        }
        return octets
    }

    /// Whether `host` is an IPv6 address (no zone): eight groups, one `::`, or an IPv4 tail, as `inet_pton` reads.
    static func isIPv6(_ host: Substring) -> Bool {
        guard host.contains(":"), host.utf8.count <= 45, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." })
        else { return false }
        var address = in6_addr()
        return inet_pton(AF_INET6, String(host), &address) == 1
    }

    private static func isHostName(_ host: Substring) -> Bool {
        !host.isEmpty && host.count <= 253
            && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
