import Logging
import Synchronization
import Testing
import YrdenConfig
import YrdenTesting
import YrdenTransport

@testable import YrdenEngine

/// A sign-in the test drives: it waits for the user until ``signIn()``, and its tokens stop being usable at
/// ``invalidate()``.
final class ScriptedSignIn: UpstreamCredentials, UpstreamSignIn {
    private struct State {
        var signedIn = false
        var readyWaiters: [CheckedContinuation<Void, Never>] = []
        var invalidWaiters: [CheckedContinuation<Void, Never>] = []
        var report: (@Sendable (SignInStatus) -> Void)?
    }

    private let state = Mutex(State())

    func signIn(
        for spec: ServerSpec,
        report: @escaping @Sendable (SignInStatus) -> Void
    ) throws(UpstreamError) -> (any UpstreamSignIn)? {
        state.withLock { $0.report = report }
        return self
    }

    func forget(_ id: String) {}

    func ready(waiting: @Sendable () -> Void) async throws(UpstreamError) {
        guard !state.withLock({ $0.signedIn }) else { return }
        waiting()
        state.withLock { $0.report }?(SignInStatus(status: "waitingForUser", authorizationURL: "https://auth/x"))
        while !state.withLock({ $0.signedIn }) {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { state in
                        if state.signedIn || Task.isCancelled { return true }
                        state.readyWaiters.append(continuation)
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                releaseAll()
            }
            if Task.isCancelled { throw UpstreamError(.notConnected, "the server was stopped") }
        }
    }

    func invalidated() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if !state.signedIn || Task.isCancelled { return true }
                    state.invalidWaiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            releaseAll()
        }
    }

    /// A cancelled wait ends at once, as the protocol promises; the others re-check and wait again if needed.
    private func releaseAll() {
        state.withLock { state in
            defer {
                state.readyWaiters.removeAll()
                state.invalidWaiters.removeAll()
            }
            return state.readyWaiters + state.invalidWaiters
        }.forEach { $0.resume() }
    }

    var authorizer: any UpstreamAuthorizer { BearerToken() }

    /// The user signed in.
    func signIn() {
        let (waiters, report) = state.withLock { state in
            state.signedIn = true
            defer { state.readyWaiters.removeAll() }
            return (state.readyWaiters, state.report)
        }
        report?(SignInStatus(status: "complete"))
        waiters.forEach { $0.resume() }
    }

    /// The tokens were refused: a new sign-in is needed.
    func invalidate() {
        let (waiters, report) = state.withLock { state in
            state.signedIn = false
            defer { state.invalidWaiters.removeAll() }
            return (state.invalidWaiters, state.report)
        }
        report?(SignInStatus(status: "needsReauth", reason: "the refresh token was refused"))
        waiters.forEach { $0.resume() }
    }
}

struct BearerToken: UpstreamAuthorizer {
    func authorization() async throws(UpstreamError) -> String { "Bearer token" }
    func rejected(_ used: String, status: Int, challenge: String?) async -> Bool { false }
}

/// Servers that sign in: `authenticating` while the user is awaited, the sign-in's progress in the status,
/// and a new sign-in when the tokens stop being usable, all through the gateway's credentials.
@Suite struct UpstreamSignInTests {
    private let spec = ServerSpec(
        id: "remote",
        transport: .http(url: "https://example.com/mcp", headers: [:], auth: .oauth(OAuthSpec()), fallbackToSSE: false),
        reconnect: .backoff(initialDelay: .milliseconds(50), maxDelay: .milliseconds(50), maxAttempts: nil)
    )

    @Test func aServerWaitsAuthenticatedForItsUserThenConnects() async throws {
        let credentials = ScriptedSignIn()
        let running = RunningGateway([spec], credentials: credentials)
        #expect(await running.until { $0.links["remote"]?.state == .authenticating })
        #expect(running.gateway.snapshot.links["remote"]?.auth?.status == "waitingForUser")
        #expect(running.gateway.snapshot.links["remote"]?.auth?.authorizationURL == "https://auth/x")
        #expect(running.channels.opens("remote") == 0, "nothing is opened before the sign-in")
        credentials.signIn()
        #expect(await running.until { $0.links["remote"]?.state.isConnected == true })
        #expect(running.gateway.snapshot.links["remote"]?.auth?.status == "complete")
        await running.stop()
    }

    @Test func tokensThatStopWorkingReplaceTheConnectionThroughANewSignIn() async throws {
        let credentials = ScriptedSignIn()
        credentials.signIn()
        let running = RunningGateway([spec], credentials: credentials)
        #expect(await running.until { $0.links["remote"]?.state.isConnected == true })
        credentials.invalidate()
        #expect(await running.until { $0.links["remote"]?.state == .authenticating })
        #expect(running.gateway.snapshot.links["remote"]?.lastFailure?.error.kind == .auth)
        credentials.signIn()
        #expect(await running.until { $0.links["remote"]?.state.isConnected == true })
        #expect(running.channels.opens("remote") == 2)
        await running.stop()
    }
}
