import Foundation
import Logging
import Synchronization
import YrdenProtocol

@testable import YrdenOAuth

/// A wall clock the test moves by hand.
final class TestClock: Sendable {
    private let seconds: Mutex<Double>

    init(_ start: Double = 1_800_000_000) {
        seconds = Mutex(start)
    }

    var now: Double { seconds.withLock { $0 } }
    func advance(_ delta: Double) { seconds.withLock { $0 += delta } }
    var oauthClock: OAuthClock { OAuthClock { self.now } }
}

/// A scripted stand-in for the network: handlers by method and URL (query ignored), every request recorded.
final class FakeNetwork: Sendable {
    typealias Handler = @Sendable (OAuthHTTPRequest) async throws -> OAuthHTTPResponse

    private struct State {
        var handlers: [String: Handler] = [:]
        var requests: [OAuthHTTPRequest] = []
    }

    private let state = Mutex(State())

    /// Answers `method url` with `handler`, replacing an earlier handler.
    func on(_ method: String, _ url: String, _ handler: @escaping Handler) {
        state.withLock { $0.handlers["\(method) \(url)"] = handler }
    }

    /// Answers `method url` with a fixed JSON document.
    func json(_ method: String, _ url: String, status: Int = 200, _ document: JSONValue) {
        on(method, url) { _ in jsonResponse(status, document) }
    }

    /// Every request so far, in order.
    var requests: [OAuthHTTPRequest] { state.withLock { $0.requests } }

    /// `"METHOD url"` of every request so far.
    var log: [String] { requests.map { "\($0.method) \($0.url)" } }

    func requests(to url: String) -> [OAuthHTTPRequest] {
        requests.filter { $0.url.split(separator: "?", maxSplits: 1).first.map(String.init) == url }
    }

    var http: OAuthHTTP {
        OAuthHTTP { request in
            let key = "\(request.method) \(request.url.split(separator: "?", maxSplits: 1)[0])"
            let handler = self.state.withLock { state in
                state.requests.append(request)
                return state.handlers[key]
            }
            guard let handler else { return OAuthHTTPResponse(status: 404, body: Array("not found".utf8)) }
            return try await handler(request)
        }
    }
}

func jsonResponse(_ status: Int, _ document: JSONValue) -> OAuthHTTPResponse {
    OAuthHTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: document.serialized())
}

/// The form fields of a request body, by name.
func formFields(_ request: OAuthHTTPRequest) -> [String: String] {
    let pairs = FormEncoding.decode(String(decoding: request.body, as: UTF8.self)) ?? []
    return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
}

/// The query parameters of a URL, by name.
func queryParameters(_ url: String) -> [String: String] {
    guard let question = url.firstIndex(of: "?") else { return [:] }
    let pairs = FormEncoding.decode(url[url.index(after: question)...]) ?? []
    return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
}

/// The JSON body of a request.
func jsonBody(_ request: OAuthHTTPRequest) -> JSONValue? {
    try? JSONValue.parse(request.body)
}

let quietLogger: Logger = {
    var logger = Logger(label: "yrden.oauth.test")
    logger.logLevel = .critical
    return logger
}()

/// A fresh directory under the system temporary directory.
struct Scratch {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/yrden-oauth-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let created else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: created)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The permission bits of `path`, e.g. `0o600`.
func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
}

/// Progress values a session reported, in order.
final class ProgressLog: Sendable {
    private let entries = Mutex<[OAuthProgress]>([])

    func record(_ progress: OAuthProgress) { entries.withLock { $0.append(progress) } }
    var all: [OAuthProgress] { entries.withLock { $0 } }
    var statuses: [String] { all.map(\.status) }
}

/// A counter shared between tasks.
final class Counter: Sendable {
    private let value = Mutex(0)

    @discardableResult
    func increment() -> Int {
        value.withLock {
            $0 += 1; return $0
        }
    }
    var count: Int { value.withLock { $0 } }
}
