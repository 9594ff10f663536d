import YrdenConsole
import YrdenHTTPServer

/// The MCP Apps sandbox: the outer frame that runs an app's page, served on a listener of its own so that the
/// page's origin is never the console's (it cannot read the console's storage, DOM or cookies).
///
/// It serves `sandbox.html` and the `sandbox-*` files it loads, nothing else. Its CSP is the one the file states
/// in its first `<!-- CSP: … -->` comment (the file knows what its frames need), plus `frame-ancestors`: only the
/// console, on the gateway's main port under the name the browser used, may frame it.
struct AppSandboxEndpoint: Sendable {
    /// The console's port, for `frame-ancestors`; known once the main listener is bound, before any request.
    let consolePort: @Sendable () -> Int
    private let statedPolicy: String

    init(consolePort: @escaping @Sendable () -> Int) {
        self.consolePort = consolePort
        statedPolicy =
            ConsoleFiles.file(named: "sandbox.html").flatMap { Self.statedPolicy(in: $0.bytes) } ?? "default-src 'none'"
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return FrontResponses.methodNotAllowed("GET, HEAD")
        }
        let name = String(request.path.drop { $0 == "/" })
        guard name.hasPrefix("sandbox"), let file = ConsoleFiles.file(named: name) else {
            return FrontResponses.notFound
        }
        let console = "http://\(ConsoleEndpoint.hostName(request.headers["Host"])):\(consolePort())"
        var headers = StaticFileHeaders.common(file)
        headers.add(name: "Content-Security-Policy", value: "\(statedPolicy); frame-ancestors \(console)")
        return StaticFileHeaders.answer(file, headers: headers, request: request)
    }

    /// The policy in `<!-- CSP: … -->`, without a `frame-ancestors` of its own (this endpoint sets that).
    static func statedPolicy(in bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let start = text.firstRange(of: "<!-- CSP:")?.upperBound,
            let end = text[start...].firstRange(of: "-->")?.lowerBound
        else { return nil }
        return text[start..<end].split(separator: ";")
            .map { $0.trimmingWhitespace() }
            .filter { !$0.isEmpty && !$0.hasPrefix("frame-ancestors") }
            .joined(separator: "; ")
    }
}
