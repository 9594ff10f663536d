import YrdenProtocol

/// One OAuth sign-in as `login` drives it: start the flow, show the authorization URL once it is known, then
/// wait for the flow to complete and the server to connect. Follows the event stream (opened before the flow
/// starts, since nothing is replayed), or polls the server without one.
struct SignIn: Sendable {
    let client: AdminClient
    let id: String
    let timeout: Duration
    let opensBrowser: Bool

    func run() async throws -> ServerView {
        try await TimeLimit.withProgress(id, limit: timeout, unfinished: "was not signed in") { progress in
            try await follow(progress)
        }
    }

    private func follow(_ progress: ProgressLine) async throws -> ServerView {
        var events = try await client.subscribeIfOffered()
        let started = try await client.post(AdminClient.serverPath(id, "auth")).json()
        var tracker = Tracker(id: id)
        if let auth = AuthView(started) { try apply(tracker.take(auth, current: true), progress) }
        while true {
            if tracker.signedIn {
                let server = try await currentView()
                if server.state == "connected" { return server }
                try apply(tracker.take(server), progress)
            }
            try await next(&events, tracker: &tracker, progress: progress)
        }
    }

    /// Takes the next event about the server (or, without a stream, the server's view a second later).
    private func next(_ events: inout EventSubscription?, tracker: inout Tracker, progress: ProgressLine) async throws {
        guard events != nil else {
            try await Task.sleep(for: .seconds(1))
            let server = try await currentView()
            if let auth = server.auth { try apply(tracker.take(auth, current: true), progress) }
            try apply(tracker.take(server), progress)
            return
        }
        guard let event = try await events?.next() else {
            events = nil
            return
        }
        switch event.name {
        case "auth.progress" where event.data["id"]?.stringValue == id:
            if let auth = event.data["auth"].flatMap(AuthView.init) { try apply(tracker.take(auth), progress) }
        case "server.state" where event.data["server"]?["id"]?.stringValue == id:
            guard let data = event.data["server"] else { break }
            let server = try ServerView(data)
            if let auth = server.auth { try apply(tracker.take(auth), progress) }
            try apply(tracker.take(server), progress)
        case "server.removed" where event.data["id"]?.stringValue == id:
            throw ClientFailure("\(id) was removed")
        default:
            break
        }
    }

    private func currentView() async throws(ClientFailure) -> ServerView {
        try ServerView(try await client.get(AdminClient.serverPath(id)).json())
    }

    private func apply(_ step: Tracker.Step, _ progress: ProgressLine) throws {
        switch step {
        case .none:
            break
        case .progress(let text):
            progress.update(text)
        case .open(let url):
            progress.clear()
            print("Open this URL in a browser to sign in to \(id):\n\n    \(url)\n")
            Terminal.flushOutput()
            if opensBrowser { Browser.open(url) }
            progress.update("waiting for the sign-in in the browser…")
        case .failed(let reason):
            throw ClientFailure(reason)
        }
    }

    /// What the sign-in has shown so far, and what each new piece of news means.
    struct Tracker {
        enum Step: Equatable {
            case none
            case progress(String)
            case open(String)
            case failed(String)
        }

        let id: String
        private(set) var announcedURL: String?
        /// The flow completed; only the connection is left.
        private(set) var signedIn = false
        /// An event showed this flow under way. Events queued before it may be about the flow it replaced
        /// (cancelled, so `failed`), and a failure counts only after it.
        private var flowUnderWay = false

        init(id: String) {
            self.id = id
        }

        /// `current` is true for what the gateway answered just now (the start, a poll), false for an event.
        mutating func take(_ auth: AuthView, current: Bool = false) -> Step {
            if !current && !["failed", "needsReauth"].contains(auth.status) { flowUnderWay = true }
            switch auth.status {
            case "discovering": return .progress("finding the authorization server…")
            case "registering": return .progress("registering the gateway as a client…")
            case "waitingForUser":
                guard let url = auth.authorizationURL, url != announcedURL else { return .none }
                announcedURL = url
                return .open(url)
            case "exchangingCode": return .progress("exchanging the authorization code…")
            case "complete":
                signedIn = true
                return .progress("signed in; connecting…")
            case "failed" where current || flowUnderWay:
                return .failed("the sign-in to \(id) failed: \(auth.reason ?? "no reason given")")
            default: return .none
            }
        }

        /// A server view counts once the flow completed: a connection that then fails for good ends the wait.
        mutating func take(_ server: ServerView) -> Step {
            guard signedIn else { return .none }
            switch server.state {
            case "connecting": return .progress("signed in; connecting…")
            case "failed" where server.retry == nil:
                return .failed("\(id) was signed in but failed to connect: \(server.lastError ?? "no reason given")")
            default: return .none
            }
        }
    }
}
