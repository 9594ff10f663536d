import YrdenConsole
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// The web console: its page at `/`, its files at `/console/<name>`, and `/console/settings.json`, what the page
/// needs to know of this gateway before it asks the admin API anything.
///
/// The files are public code, so they need no admin token; what they show comes from `/api/v1`, which does. The
/// page's CSP lets it run only its own scripts, talk only to this gateway, and frame only the MCP Apps sandbox,
/// which is served on a port of its own so that an app never shares the console's origin.
struct ConsoleEndpoint: Sendable {
    /// The MCP Apps sandbox listener's port; `nil` when apps cannot run (the console still works).
    let sandboxPort: Int?
    let adminTokenRequired: Bool
    let toolSeparator: String

    static let filePrefix = "/console/"

    func handles(_ path: String) -> Bool {
        path == "/" || path == "/index.html" || path.hasPrefix(Self.filePrefix)
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return FrontResponses.methodNotAllowed("GET, HEAD")
        }
        let name =
            request.path.hasPrefix(Self.filePrefix)
            ? String(request.path.dropFirst(Self.filePrefix.count)) : "index.html"
        let sandboxOrigin = sandboxPort.map { "http://\(Self.hostName(request.headers["Host"])):\($0)" }
        if name == "settings.json" {
            return settings(sandboxOrigin: sandboxOrigin)
        }
        guard let file = ConsoleFiles.file(named: name), !name.hasPrefix("sandbox") else {
            return FrontResponses.notFound
        }
        var headers = StaticFileHeaders.common(file)
        headers.add(name: "Content-Security-Policy", value: Self.policy(sandboxOrigin: sandboxOrigin))
        headers.add(name: "X-Frame-Options", value: "DENY")
        return StaticFileHeaders.answer(file, headers: headers, request: request)
    }

    private func settings(sandboxOrigin: String?) -> HTTPResponse {
        let value: JSONValue = .object([
            "sandboxOrigin": sandboxOrigin.map { .string($0) } ?? .null,
            "adminTokenRequired": .bool(adminTokenRequired),
            "version": .string(Gateway.version),
            "toolSeparator": .string(toolSeparator),
        ])
        return FrontResponses.json(
            200,
            value,
            headers: ["Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"]
        )
    }

    /// Nothing but the console's own files and this gateway; frames only from the apps sandbox.
    static func policy(sandboxOrigin: String?) -> String {
        [
            "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:",
            "font-src 'self'", "connect-src 'self'", "frame-src \(sandboxOrigin ?? "'none'")", "base-uri 'none'",
            "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    /// The name the browser used for the gateway, so the sandbox is reached under the same name on its own port
    /// (`HostPolicy` has already accepted it).
    static func hostName(_ host: String?) -> String {
        guard let host, !host.isEmpty else { return "127.0.0.1" }
        return HostPolicy.hostName(of: host)
    }
}
