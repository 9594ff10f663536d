import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import YrdenProtocol

extension HTTPConnection {
    /// What one attempt to open a long-lived stream (the GET stream, a listen POST) came to.
    enum StreamOpening {
        /// An answer other than a refused credential: the caller reads its status.
        case opened(UpstreamResponse)
        /// Try again now: the authorizer has another credential, or the server was unreachable and the
        /// pause before the next attempt is over.
        case retry
        /// The channel was reported closed (credentials refused, the server gone), or the task cancelled.
        case stop
    }

    /// Sends `request` signed and without a deadline (the connect timeout still applies). A server that
    /// cannot be reached is retried after ``retryDelays`` and, past them, reports the channel closed: this
    /// is what notices a server that went away while no call was in flight. A 401/403 is retried once the
    /// authorizer has another credential, and closes the channel otherwise.
    func openStream(_ request: UpstreamRequest, unreachable: inout Int) async -> StreamOpening {
        var request = request
        let credential: String?
        do { credential = try await authorize(&request) } catch {
            reportClosed(error)
            return .stop
        }
        let response: UpstreamResponse
        do {
            // Not pooled: a stream would hold one of the pool's connections for as long as it is open.
            response = try await execute(request, deadline: .distantFuture, pooled: false)
            unreachable = 0
        } catch {
            if Task.isCancelled { return .stop }
            unreachable += 1
            guard unreachable <= Self.retryDelays.count else {
                reportClosed(Self.networkError(error))
                return .stop
            }
            try? await Task.sleep(for: Self.retryDelays[unreachable - 1])
            return .retry
        }
        let status = Int(response.status.code)
        guard status == 401 || status == 403 else { return .opened(response) }
        _ = try? await response.body.collect(upTo: 64 * 1024)
        if await reauthorize(after: response, credential: credential) { return .retry }
        reportClosed(await Self.statusError(response))
        return .stop
    }

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
            let response: UpstreamResponse
            switch await openStream(request, unreachable: &unreachable) {
            case .opened(let opened): response = opened
            case .retry: continue
            case .stop: return
            }
            let status = Int(response.status.code)
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
