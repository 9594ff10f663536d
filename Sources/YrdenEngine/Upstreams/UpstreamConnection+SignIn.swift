import Logging
import Synchronization
import YrdenConfig
import YrdenTransport

extension UpstreamConnection {
    /// The server's sign-in, ready to use: `nil` for a server that does not sign in. While a user must sign
    /// in, the attempt reports it (the server shows `authenticating`) and waits, on the sign-in's own events.
    func signIn() async throws(UpstreamError) -> (any UpstreamSignIn)? {
        guard spec.signsIn else { return nil }
        guard let credentials = owners.connector.credentials else {
            throw UpstreamError(.auth, "this gateway was started without OAuth support, which server \(spec.id) needs")
        }
        let connection = self
        guard
            let signIn = try credentials.signIn(for: spec, report: { status in connection.reportSignIn(status) })
        else { return nil }
        let inbox = self.inbox
        let waited = WaitedFlag()
        try await signIn.ready(waiting: {
            waited.set()
            inbox.report(.signInNeeded)
        })
        if waited.isSet { inbox.report(.signedIn) }
        return signIn
    }

    /// Publishes where the sign-in stands, and keeps a line for it in the server's ring. The sign-in calls
    /// this where it cannot wait, so the change is queued without waiting for it (after the connection's
    /// changes queued before, ahead of those queued after).
    private func reportSignIn(_ status: SignInStatus) {
        owners.registry.publishSoon(spec.id, owner: owner) { $0.auth = status }
        owners.registry.logRing(spec.id)?.append(status.logLine, level: .notice, event: "auth")
    }
}

extension ServerSpec {
    /// Whether the server signs in with OAuth before it is reached.
    var signsIn: Bool { transport.oauthSettings != nil }
}

/// Whether the sign-in made the attempt wait, set from the `waiting` callback.
private final class WaitedFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}
