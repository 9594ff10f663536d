import Synchronization
import Testing

@testable import YrdenOAuth

/// Records what the router did with a flow.
final class FlowProbe: Sendable {
    let redeemed = Mutex<[String]>([])
    let abandoned = Mutex<[String]>([])

    func flow(
        server: String,
        state: String,
        expiresAt: Double,
        issuer: String = "https://auth.example.com",
        issuerRequired: Bool = false
    ) -> PendingAuthorization {
        PendingAuthorization(
            serverID: server,
            state: state,
            issuer: issuer,
            issuerRequired: issuerRequired,
            expiresAt: expiresAt,
            redeem: { code in
                self.redeemed.withLock { $0.append(code) }
                return .signedIn(serverID: server)
            },
            abandon: { reason in self.abandoned.withLock { $0.append(reason) } }
        )
    }

    var redeemedCodes: [String] { redeemed.withLock { $0 } }
    var abandonReasons: [String] { abandoned.withLock { $0 } }
}

@Suite struct CallbackRouterTests {
    let clock = TestClock()
    let probe = FlowProbe()
    let callback = "http://127.0.0.1:8750/oauth/callback"

    func router() -> OAuthCallbackRouter { OAuthCallbackRouter(clock: clock.oauthClock) }

    @Test func codeWithAKnownStateIsRedeemedOnce() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "s1", expiresAt: clock.now + 300))
        let first = await router.handleCallback(url: "\(callback)?code=abc&state=s1")
        #expect(first == .signedIn(serverID: "tasks"))
        #expect(probe.redeemedCodes == ["abc"])
        #expect(router.pendingServerIDs.isEmpty)

        let replay = await router.handleCallback(url: "\(callback)?code=abc&state=s1")
        guard case .rejected(let reason) = replay else {
            Issue.record("a used state was accepted: \(replay)")
            return
        }
        #expect(reason.contains("already"))
        #expect(replay.httpStatus == 400)
        #expect(probe.redeemedCodes == ["abc"])
    }

    @Test func unknownStateIsRejectedAndChangesNothing() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "s1", expiresAt: clock.now + 300))
        let result = await router.handleCallback(url: "\(callback)?code=abc&state=guess")
        #expect(result.httpStatus == 400)
        #expect(result.serverID == nil)
        #expect(router.pendingServerIDs == ["tasks"])
        #expect(probe.redeemedCodes.isEmpty)
        #expect(probe.abandonReasons.isEmpty)
        // The real callback still works afterwards.
        #expect(await router.handleCallback(url: "\(callback)?code=abc&state=s1") == .signedIn(serverID: "tasks"))
    }

    @Test func missingStateOrMissingCodeAndErrorIsRejected() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "s1", expiresAt: clock.now + 300))
        #expect(await router.handleCallback(url: "\(callback)?code=abc").httpStatus == 400)
        #expect(await router.handleCallback(url: "\(callback)?state=s1").httpStatus == 400)
        #expect(await router.handleCallback(url: "\(callback)?state=s1&state=s2&code=c").httpStatus == 400)
        #expect(await router.handleCallback(url: callback).httpStatus == 400)
        #expect(router.pendingServerIDs == ["tasks"])
        #expect(probe.redeemedCodes.isEmpty)
    }

    @Test func expiredStateIsRejectedAndTheFlowEnds() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "s1", expiresAt: clock.now + 300))
        clock.advance(301)
        let result = await router.handleCallback(url: "\(callback)?code=abc&state=s1")
        guard case .rejected(let reason) = result else {
            Issue.record("an expired state was accepted: \(result)")
            return
        }
        #expect(reason.contains("expired"))
        #expect(probe.redeemedCodes.isEmpty)
        #expect(probe.abandonReasons == [OAuthCallbackRouter.expiryReason])
        #expect(router.pendingServerIDs.isEmpty)
    }

    @Test func sweepingRemovesOnlyExpiredFlows() async {
        let router = router()
        _ = router.register(probe.flow(server: "old", state: "s1", expiresAt: clock.now + 300))
        clock.advance(200)
        _ = router.register(probe.flow(server: "new", state: "s2", expiresAt: clock.now + 300))
        clock.advance(150)
        await router.removeExpired()
        #expect(router.pendingServerIDs == ["new"])
        #expect(probe.abandonReasons.count == 1)
        #expect(await router.handleCallback(url: "\(callback)?code=c&state=s1").httpStatus == 400)
        #expect(await router.handleCallback(url: "\(callback)?code=c&state=s2") == .signedIn(serverID: "new"))
    }

    @Test func oneFlowPerServerAndServersAreIndependent() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "first", expiresAt: clock.now + 300))
        _ = router.register(probe.flow(server: "files", state: "other", expiresAt: clock.now + 300))
        let replaced = router.register(probe.flow(server: "tasks", state: "second", expiresAt: clock.now + 300))
        #expect(replaced.map(\.state) == ["first"])
        #expect(router.pendingServerIDs == ["files", "tasks"])
        #expect(await router.handleCallback(url: "\(callback)?code=c&state=first").httpStatus == 400)
        #expect(await router.handleCallback(url: "\(callback)?code=c&state=second") == .signedIn(serverID: "tasks"))
        #expect(await router.handleCallback(url: "\(callback)?code=d&state=other") == .signedIn(serverID: "files"))
        #expect(probe.redeemedCodes == ["c", "d"])
    }

    @Test func accessDeniedEndsTheFlowWithAReadableReason() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "s1", expiresAt: clock.now + 300))
        let result = await router.handleCallback(
            url: "\(callback)?error=access_denied&error_description=The+user+said+no&state=s1"
        )
        let reason = "the authorization server answered error=access_denied: The user said no"
        #expect(result == .failed(serverID: "tasks", reason: reason))
        #expect(result.httpStatus == 200)
        #expect(probe.abandonReasons == [reason])
        #expect(probe.redeemedCodes.isEmpty)
        #expect(router.pendingServerIDs.isEmpty)
    }

    @Test func issuerMismatchNeverRedeemsTheCode() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "s1", expiresAt: clock.now + 300))
        let result = await router.handleCallback(
            url: "\(callback)?code=abc&state=s1&iss=https%3A%2F%2Fevil.example.com"
        )
        guard case .failed(_, let reason) = result else {
            Issue.record("an iss mismatch was not a failure: \(result)")
            return
        }
        #expect(reason.contains("https://evil.example.com"))
        #expect(probe.redeemedCodes.isEmpty)
    }

    @Test func issuerMismatchWinsOverTheErrorItCarries() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "s1", expiresAt: clock.now + 300))
        let result = await router.handleCallback(
            url: "\(callback)?error=access_denied&error_description=click+here&state=s1&iss=https%3A%2F%2Fevil.example"
        )
        #expect(result.httpStatus == 200)
        #expect(probe.abandonReasons.first?.contains("click here") == false)
    }

    @Test func missingIssuerFailsWhenTheServerPromisedOne() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "s1", expiresAt: clock.now + 300, issuerRequired: true))
        let result = await router.handleCallback(url: "\(callback)?code=abc&state=s1")
        guard case .failed = result else {
            Issue.record("a missing iss was accepted: \(result)")
            return
        }
        #expect(probe.redeemedCodes.isEmpty)

        _ = router.register(probe.flow(server: "tasks", state: "s2", expiresAt: clock.now + 300, issuerRequired: true))
        let matching = await router.handleCallback(
            url: "\(callback)?code=good&state=s2&iss=https%3A%2F%2Fauth.example.com"
        )
        #expect(matching == .signedIn(serverID: "tasks"))
        #expect(probe.redeemedCodes == ["good"])
    }

    @Test func aStateOfAnotherServerIsRejectedWhenTheCallerNamesTheServer() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "s1", expiresAt: clock.now + 300))
        let result = await router.handleCallback(url: "\(callback)?code=abc&state=s1", serverID: "files")
        #expect(result.httpStatus == 400)
        #expect(router.pendingServerIDs == ["tasks"])
        #expect(
            await router.handleCallback(query: ["code": "abc", "state": "s1"], serverID: "tasks")
                == .signedIn(serverID: "tasks")
        )
    }

    @Test func cancelRemovesAServersFlowWithoutEndingIt() async {
        let router = router()
        _ = router.register(probe.flow(server: "tasks", state: "s1", expiresAt: clock.now + 300))
        #expect(router.cancel(serverID: "tasks").count == 1)
        #expect(router.pendingServerIDs.isEmpty)
        #expect(probe.abandonReasons.isEmpty)
        #expect(await router.handleCallback(url: "\(callback)?code=abc&state=s1").httpStatus == 400)
    }
}
