import Testing
import YrdenConsole
import YrdenHTTPServer

@testable import YrdenFront

@Suite struct ConsoleEndpointTests {
    private let console = ConsoleEndpoint(sandboxPort: 8751, adminTokenRequired: true, toolSeparator: "__")

    private func get(_ path: String, _ headers: HTTPHeaders = ["Host": "localhost:8750"]) -> HTTPResponse {
        console.handle(HTTPRequest(method: "GET", path: path, headers: headers))
    }

    private func text(_ response: HTTPResponse) -> String {
        guard case .bytes(let bytes) = response.body else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func theRootIsThePageUnderAPolicyThatFramesOnlyTheSandbox() throws {
        let page = get("/")
        #expect(page.status == 200)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.headers["X-Content-Type-Options"] == "nosniff")
        let policy = try #require(page.headers["Content-Security-Policy"])
        #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"))
        #expect(policy.contains("frame-src http://localhost:8751"))
        #expect(!policy.contains("unsafe"))
        #expect(text(page).contains("<html"))
    }

    @Test func settingsNameTheSandboxUnderTheNameTheBrowserUsed() {
        let settings = text(get("/console/settings.json", ["Host": "[::1]:8750"]))
        #expect(settings.contains(#""sandboxOrigin":"http://[::1]:8751""#))
        #expect(settings.contains(#""adminTokenRequired":true"#))
        let noApps = ConsoleEndpoint(sandboxPort: nil, adminTokenRequired: false, toolSeparator: "__")
        let page = noApps.handle(HTTPRequest(method: "GET", path: "/"))
        #expect(page.headers["Content-Security-Policy"]?.contains("frame-src 'none'") == true)
    }

    @Test func anUnchangedFileIsAnsweredWithoutItsBody() throws {
        let first = get("/")
        let tag = try #require(first.headers["ETag"])
        let again = get("/", ["Host": "localhost:8750", "If-None-Match": "\"other\", \(tag)"])
        #expect(again.status == 304)
        #expect(text(again).isEmpty)
    }

    @Test func onlyReadsOfKnownFilesAreServed() {
        #expect(get("/console/nothing-here.js").status == 404)
        #expect(get("/console/../index.html").status == 404)
        #expect(get("/console/sandbox.html").status == 404, "the sandbox is served only on its own origin")
        #expect(console.handle(HTTPRequest(method: "POST", path: "/")).status == 405)
    }

    @Test func theSandboxIsFramedOnlyByTheConsoleAndNeverServesTheConsole() throws {
        let sandbox = AppSandboxEndpoint(consolePort: { 8750 })
        let page = sandbox.handle(
            HTTPRequest(method: "GET", path: "/sandbox.html", headers: ["Host": "127.0.0.1:8751"])
        )
        #expect(page.status == 200)
        let policy = try #require(page.headers["Content-Security-Policy"])
        #expect(policy.hasSuffix("; frame-ancestors http://127.0.0.1:8750"))
        #expect(sandbox.handle(HTTPRequest(method: "GET", path: "/index.html")).status == 404)
        #expect(sandbox.handle(HTTPRequest(method: "GET", path: "/console/settings.json")).status == 404)
    }

    @Test func theSandboxPolicyIsTheOneItsFileStatesWithoutFrameAncestors() {
        let file = Array(
            "<!DOCTYPE html>\n<!-- CSP: default-src 'none'; script-src 'unsafe-inline'; frame-ancestors *; -->".utf8
        )
        #expect(AppSandboxEndpoint.statedPolicy(in: file) == "default-src 'none'; script-src 'unsafe-inline'")
        #expect(AppSandboxEndpoint.statedPolicy(in: Array("<html>".utf8)) == nil)
    }

    @Test func embeddedFilesKeepTheirBytesAndTypes() {
        #expect(ConsoleFile.mediaType(forName: "app.js") == "text/javascript; charset=utf-8")
        #expect(ConsoleFile.mediaType(forName: "console.css") == "text/css; charset=utf-8")
        #expect(ConsoleFile.digest(Array("a".utf8)) != ConsoleFile.digest(Array("b".utf8)))
        #expect(ConsoleFiles.file(named: "index.html")?.bytes.isEmpty == false)
    }
}
