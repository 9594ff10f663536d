import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension HTTPConnection {
    /// Waits before reopening a GET stream that ended: the server's `retry:` when it sent one, else this,
    /// doubling after each refusal up to ``maxListenDelay``.
    static let listenDelay: Duration = .milliseconds(500)
    static let maxListenDelay: Duration = .seconds(30)

    /// Keeps the server's GET stream open and delivers what it carries, until cancelled.
    ///
    /// A server without one answers 405, and that is the end of it. A stream that drops is reopened with
    /// `Last-Event-ID`; a 404 means the server forgot the session (it restarted), which is renewed. When the
    /// server cannot be reached for a few seconds, the channel reports `closed`: this stream is what notices a
    /// server that went away while no call was in flight.
    func listen() async {
        var lastEventID: String?
        var retry: Duration?
        var refusals = 0
        var unreachable = 0
        while !Task.isCancelled {
            var request = makeRequest(method: .GET, accept: "text/event-stream")
            if let lastEventID { request.headers.replaceOrAdd(name: "Last-Event-ID", value: lastEventID) }
            let sentSession = request.headers.first(name: Self.sessionHeader)
            let credential: String?
            do { credential = try await authorize(&request) } catch {
                reportClosed(error)
                return
            }
            let response: HTTPClientResponse
            do {
                // No deadline: the stream is meant to stay open; the connect timeout still applies.
                response = try await client.execute(request, deadline: .distantFuture)
                unreachable = 0
            } catch {
                if Task.isCancelled { return }
                unreachable += 1
                guard unreachable <= Self.retryDelays.count else {
                    reportClosed(Self.networkError(error))
                    return
                }
                try? await Task.sleep(for: Self.retryDelays[unreachable - 1])
                continue
            }
            let status = Int(response.status.code)
            if status == 401 || status == 403 {
                _ = try? await response.body.collect(upTo: 64 * 1024)
                if await reauthorize(after: response, credential: credential) { continue }
                reportClosed(await Self.statusError(response))
                return
            }
            let contentType = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
            switch status {
            case 405:
                handler.log("the server offers no GET stream (HTTP 405)")
                return
            case 404 where sentSession != nil:
                _ = try? await response.body.collect(upTo: 64 * 1024)
                guard let sentSession, await renewSession(after: sentSession) else { return }
                lastEventID = nil
                continue
            case 200 where contentType.hasPrefix("text/event-stream"):
                refusals = 0
                var parser = SSEParser(maxEventBytes: Self.maxBodyBytes)
                do {
                    for try await buffer in response.body {
                        parser.feed(buffer.readableBytesView) { event in
                            guard !isClosing else { return }
                            handler.frame(event.data)
                        }
                    }
                } catch {
                    if Task.isCancelled { return }
                    handler.log("the GET stream broke off: \(error)")
                }
                lastEventID = parser.lastEventID ?? lastEventID
                if let milliseconds = parser.retryMilliseconds { retry = .milliseconds(milliseconds) }
            default:
                refusals += 1
                handler.log("the server refused the GET stream: HTTP \(status)")
                _ = try? await response.body.collect(upTo: 64 * 1024)
            }
            var delay = retry ?? Self.listenDelay
            if refusals > 0 { delay = min(Self.listenDelay * (1 << min(refusals, 6)), Self.maxListenDelay) }
            try? await Task.sleep(for: delay)
        }
    }
}
