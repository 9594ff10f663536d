import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization
import YrdenProtocol

/// What 2026-07-28 changes on one Streamable HTTP channel: each request a task of its own, cancelled by
/// closing its stream; a listen stream replaced when its filter changes; a refusal's JSON-RPC error taken
/// as the answer.
extension HTTPConnection {
    /// Runs a 2026-07-28 request in a task of its own, so that cancelling it closes its stream. A listen
    /// replaces the one held before: its filter changed.
    func startModern(_ frame: OutboundFrame) {
        guard let id = frame.id else { return }
        let isListen = frame.method == MCPMethod.subscriptionsListen
        // Owned by the channel: registered until it ends, cancelled by a cancellation or by `run` ending.
        let task = Task {
            if isListen { await self.subscribe(frame) } else { await self.post(frame) }
            _ = self.state.withLock { $0.modernRequests.removeValue(forKey: id) }
        }
        let replaced = state.withLock { state -> Task<Void, Never>? in
            state.modernRequests[id] = task
            guard isListen else { return nil }
            defer { state.listenID = id }
            return state.listenID.flatMap { $0 == id ? nil : state.modernRequests.removeValue(forKey: $0) }
        }
        replaced?.cancel()
    }

    /// Cancels the 2026-07-28 request `id` by closing its stream; false when it is not one in flight.
    func cancelModern(_ id: JSONRPCID) -> Bool {
        guard let task = state.withLock({ $0.modernRequests.removeValue(forKey: id) }) else { return false }
        task.cancel()
        return true
    }

    /// A 4xx that a 2026-07-28 server sends with a JSON-RPC error; never 401 or 403, which are the
    /// authorizer's to answer.
    static func mayCarryAnswer(_ status: Int) -> Bool {
        (400..<500).contains(status) && status != 401 && status != 403
    }

    /// The body of a refusal when it is a JSON-RPC error response (bounded), of code `onlyCode` when given;
    /// `nil` for anything else.
    static func errorAnswer(_ response: UpstreamResponse, onlyCode: Int? = nil) async -> [UInt8]? {
        let body = await boundedBody(response)
        return isErrorAnswer(body, of: response, onlyCode: onlyCode) ? body : nil
    }

    /// Whether `body`, read from `response`, is a JSON-RPC error response (of code `onlyCode` when given).
    static func isErrorAnswer(_ body: [UInt8], of response: UpstreamResponse, onlyCode: Int? = nil) -> Bool {
        let contentType = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
        guard contentType.hasPrefix("application/json"),
            let code = (try? JSONValue.parse(body))?["error"]?["code"]?.intValue
        else { return false }
        return onlyCode.map { $0 == code } ?? true
    }

    static func statusFailure(_ status: Int) -> UpstreamError {
        UpstreamError(.http, "the server answered HTTP \(status) with an error for another request", httpStatus: status)
    }
}
