import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A response as the test client parsed it.
struct TestResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

struct TestClientError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking HTTP/1.1 client over a raw POSIX socket: just enough to check what the server puts on the wire
/// (status line, headers, `Content-Length` and chunked bodies, keep-alive). Use it on its own thread
/// (`onThread`), never on the cooperative pool, which the server's handlers need.
final class TestConnection {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    init(port: Int, host: String = "127.0.0.1", receiveTimeout: Int = 20) throws {
        let isIPv6 = host.contains(":")
        descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestClientError(description: "socket() failed") }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port)).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port)).bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw TestClientError(description: "connect to \(host):\(port) failed: \(reason)")
        }
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(descriptor)
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            guard sent > 0 else {
                throw TestClientError(description: "send failed: \(String(cString: strerror(errno)))")
            }
            offset += sent
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends a request with `Content-Length` (when there is a body) and `Host`.
    func sendRequest(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) throws {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
    }

    /// Sends a request and reads its response.
    func request(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) throws
        -> TestResponse
    {
        try sendRequest(method, target, headers: headers, body: body)
        return try readResponse()
    }

    /// Reads the status line and headers.
    func readHead() throws -> (status: Int, headers: [(String, String)]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw TestClientError(description: "bad status line: \(statusLine)")
        }
        var headers: [(String, String)] = []
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw TestClientError(description: "bad header \(line)") }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((String(line[..<colon]), value))
        }
        return (status, headers)
    }

    /// Reads a whole response: `Content-Length`, chunked, or (with `Connection: close`) until end of stream.
    func readResponse() throws -> TestResponse {
        let (status, headers) = try readHead()
        var response = TestResponse(status: status, headers: headers, body: [])
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while let chunk = try readChunk() { response.body += chunk }
        } else if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try readExactly(length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// Reads one chunk of a chunked body; `nil` at the terminating zero-size chunk.
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        let sizeText = sizeLine.split(separator: ";").first.map(String.init) ?? ""
        guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
            throw TestClientError(description: "bad chunk size line: \(sizeLine)")
        }
        if size == 0 {
            while try !readLine().isEmpty {}  // trailers
            return nil
        }
        let data = try readExactly(size)
        guard try readLine().isEmpty else { throw TestClientError(description: "chunk not followed by CRLF") }
        return data
    }

    func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw TestClientError(description: "connection closed mid-body") }
        }
        let data = Array(buffer[..<count])
        buffer.removeFirst(count)
        return data
    }

    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Whether the server closed the connection (reads until EOF or an error such as a reset).
    func waitForClose() -> Bool {
        (try? readToEnd()) != nil
    }

    /// Closes this side for sending only, as a client does that gives up mid-request; reading still works.
    func shutdownWrite() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Whether the server has closed the connection, without waiting: a peek finds the end of stream or an error.
    func serverHasClosed() -> Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    private func readLine() throws -> String {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<end])
                buffer.removeFirst(end + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw TestClientError(description: "connection closed mid-line") }
        }
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count == 0 { return false }
        guard count > 0 else { throw TestClientError(description: "recv failed: \(String(cString: strerror(errno)))") }
        buffer += chunk[..<count]
        return true
    }
}

/// Runs blocking client code on a thread of its own, so it never occupies one of the few cooperative threads
/// the server's handlers run on.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
