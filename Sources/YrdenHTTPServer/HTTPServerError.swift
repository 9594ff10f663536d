#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the HTTP server could not do what was asked.
///
/// A struct with a private code, so new failure kinds can be added without breaking callers who switch on it;
/// compare against the static members (`error == .streamClosed`) or read `shortDescription` for metrics.
package struct HTTPServerError: Error, Hashable, CustomStringConvertible {
    private enum Code: String, Hashable {
        case invalidConfiguration
        case cannotListen
        case daemonStartFailed
        case alreadyRunning
        case streamClosed
    }

    private let code: Code
    /// Human-readable detail (address, errno text); not part of equality.
    package let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// A bounded label without any request data, for logs' keys and metric dimensions.
    package var shortDescription: String { code.rawValue }

    package var description: String { "HTTPServerError.\(code.rawValue): \(detail)" }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A configuration value is out of range (port, host literal, limits).
    package static func invalidConfiguration(_ detail: String) -> Self { Self(.invalidConfiguration, detail) }

    /// The socket could not be created, bound or put into listening state.
    package static func cannotListen(host: String, port: Int, errno code: Int32, step: String) -> Self {
        let reason = String(cString: strerror(code))
        return Self(.cannotListen, "cannot listen on \(HostPort(host: host, port: port)): \(step) failed: \(reason)")
    }

    /// libmicrohttpd refused to start (it logs its reason to stderr when error logging is on).
    package static func daemonStartFailed(host: String, port: Int) -> Self {
        Self(.daemonStartFailed, "libmicrohttpd failed to start on \(HostPort(host: host, port: port))")
    }

    /// `run()` was called a second time; a server serves once.
    package static let alreadyRunning = Self(.alreadyRunning, "run() may be called only once per HTTPServer")

    /// The client went away or the server is shutting down; a streamed body can take no more bytes.
    package static let streamClosed = Self(.streamClosed, "the response stream is closed")
}

/// Formats an address the way URLs do: IPv6 literals in brackets.
struct HostPort: CustomStringConvertible {
    let host: String
    let port: Int

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
