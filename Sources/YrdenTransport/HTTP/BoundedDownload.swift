import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// A file fetched whole into memory, bounded: https (or plain http to this machine) only, the redirects of a
/// release download followed by hand (the shared client refuses them) to https or loopback URLs only, at most
/// `maxBytes` (told by `Content-Length` up front, or counted), everything within one deadline.
package enum BoundedDownload {
    static let maxRedirects = 5

    /// Why the download failed.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }

    package static func get(
        _ url: String,
        client: HTTPClient,
        maxBytes: Int,
        timeout: Duration
    ) async throws(Failure) -> [UInt8] {
        let (seconds, attoseconds) = timeout.components
        let deadline = NIODeadline.now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        var current = url
        for _ in 0...maxRedirects {
            guard isAllowed(current) else {
                throw Failure("\(current) is neither https nor http to a loopback address")
            }
            let request = HTTPClientRequest(url: current)
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: deadline)
            } catch {
                throw Failure("\(error)")
            }
            if (300..<400).contains(response.status.code), let location = response.headers.first(name: "Location") {
                current = resolve(location, against: current)
                continue
            }
            guard response.status == .ok else { throw Failure("HTTP status \(response.status.code)") }
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
                throw Failure("it is \(length) bytes, more than \(maxBytes >> 20) MiB")
            }
            do {
                return Array(try await response.body.collect(upTo: maxBytes).readableBytesView)
            } catch is NIOTooManyBytesError {
                throw Failure("it is more than \(maxBytes >> 20) MiB")
            } catch {
                throw Failure("\(error)")
            }
        }
        throw Failure("more than \(maxRedirects) redirects")
    }

    /// https, or http to a loopback address.
    package static func isAllowed(_ url: String) -> Bool {
        if url.hasPrefix("https://") { return true }
        return ["127.0.0.1", "localhost", "[::1]"].contains { host in
            url.hasPrefix("http://\(host)/") || url.hasPrefix("http://\(host):")
        }
    }

    /// A `Location` against the URL that answered it: absolute as it is, a path on the same origin.
    static func resolve(_ location: String, against base: String) -> String {
        if location.contains("://") { return location }
        guard location.hasPrefix("/"), let scheme = base.firstRange(of: "://") else { return location }
        let afterScheme = base[scheme.upperBound...]
        let hostEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        return String(base[..<hostEnd]) + location
    }
}
