import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import YrdenProtocol

extension HTTPConnection {
    /// Keeps a 2026-07-28 server's `subscriptions/listen` stream open and delivers what it carries, until
    /// cancelled: that era's replacement for the GET stream.
    ///
    /// The stream is a POST answered with SSE. When it ends (the server closed it, or it broke off) it is
    /// opened again after a pause, since the spec has no replay; a server that refuses it (-32601) has none,
    /// and that is the end of it. Like the GET stream, it notices a server that went away while no call was
    /// in flight: a few failures to reach it in a row report the channel closed.
    func subscribe(_ frame: OutboundFrame) async {
        var refusals = 0
        var unreachable = 0
        while !Task.isCancelled {
            var request = makeRequest(method: .POST, accept: "application/json, text/event-stream", for: frame)
            request.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            request.body = frame.bytes
            let response: UpstreamResponse
            switch await openStream(request, unreachable: &unreachable) {
            case .opened(let opened): response = opened
            case .retry: continue
            case .stop: return
            }
            let status = Int(response.status.code)
            if (200..<300).contains(status) {
                refusals = 0
                do {
                    _ = try await readMessages(response) { message in
                        guard !isClosing else { return false }
                        handler.frame(message)
                        return false
                    }
                } catch {
                    if Task.isCancelled { return }
                    handler.log("the subscriptions/listen stream broke off: \(error)")
                }
            } else if await Self.errorAnswer(response, onlyCode: JSONRPCError.methodNotFound("").code) != nil {
                handler.log("the server offers no subscriptions/listen (HTTP \(status)); no list changes will arrive")
                return
            } else {
                refusals += 1
                handler.log("the server refused subscriptions/listen: HTTP \(status)")
            }
            let delay = min(Self.listenDelay * (1 << min(refusals, 6)), Self.maxListenDelay)
            try? await Task.sleep(for: delay)
        }
    }
}
