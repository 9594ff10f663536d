import YrdenProtocol

/// Waits after `add`, `connect` or `restart` until the server is connected, showing each step on a progress
/// line. It follows the event stream, or polls the server when the gateway offers no stream.
struct ConnectionWait: Sendable {
    let client: AdminClient
    let id: String
    let timeout: Duration

    /// What a view of the server means for the wait.
    enum Verdict: Equatable {
        case connected
        case failed(String)
        case waiting(String)
    }

    static func verdict(_ server: ServerView) -> Verdict {
        let id = server.id
        if server.state != "connected", let auth = server.auth, ["needsReauth", "failed"].contains(auth.status) {
            return .failed("\(id) needs an OAuth sign-in (\(auth.reason ?? auth.status)): run `yrden login \(id)`")
        }
        switch server.state {
        case "connected":
            return .connected
        case "connecting":
            return .waiting("connecting… attempt \((server.retry ?? 0) + 1)")
        case "failed":
            let reason = server.lastError ?? "no reason given"
            guard let retry = server.retry else { return .failed("\(id) failed to connect: \(reason)") }
            return .waiting("attempt \(retry) failed: \(reason); retrying…")
        case "authenticating":
            return .waiting("waiting for the OAuth sign-in (`yrden login \(id)`)…")
        case "disabled":
            return .failed("\(id) is disabled: enable it in the config first")
        case "disconnected":
            return .failed("\(id) was disconnected")
        case "stopped":
            return .failed("\(id) is being removed")
        default:
            return .waiting("\(server.state)…")
        }
    }

    /// The connected server's view; a ``ClientFailure`` when it failed for good or the time ran out.
    func run() async throws -> ServerView {
        try await TimeLimit.withProgress(id, limit: timeout, unfinished: "did not connect") { progress in
            try await follow(progress)
        }
    }

    private func follow(_ progress: ProgressLine) async throws -> ServerView {
        var events = try await client.subscribeIfOffered()
        var server = try await currentView()
        while true {
            switch Self.verdict(server) {
            case .connected: return server
            case .failed(let reason): throw ClientFailure(reason)
            case .waiting(let text): progress.update(text)
            }
            server = try await nextView(&events)
        }
    }

    private func currentView() async throws(ClientFailure) -> ServerView {
        try ServerView(try await client.get(AdminClient.serverPath(id)).json())
    }

    /// The server's next view: from the next event about it, else (no stream, or it ended) by polling.
    private func nextView(_ events: inout EventSubscription?) async throws -> ServerView {
        while events != nil {
            guard let event = try await events?.next() else {
                events = nil
                return try await currentView()
            }
            switch event.name {
            case "server.state", "server.added":
                if let data = event.data["server"], data["id"]?.stringValue == id { return try ServerView(data) }
            case "server.removed" where event.data["id"]?.stringValue == id:
                throw ClientFailure("\(id) was removed")
            default:
                continue
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        return try await currentView()
    }
}
