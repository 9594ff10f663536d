import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// Who a request acts for: a static token's stable name, a caller never shown with its token, and the caller
/// carried from the session or the stateless request to the call that is forwarded.
@Suite struct CallerTests {
    @Test func aClientTokensNameIsStableAndSaysNothingOfTheToken() {
        let token = "caller-test-token-9b1e"
        let caller = Caller.clientToken(token)
        #expect(caller.user.hasPrefix("token:") && caller.user.count == "token:".count + 8)
        #expect(caller.user.dropFirst(6).allSatisfy { $0.isHexDigit })
        #expect(caller.user == Caller.clientToken(token).user, "the same token, the same name, on every replica")
        #expect(caller.user != Caller.clientToken(token + "x").user)
        #expect(caller.token?.value == token, "kept for an exchange or a forward")
        var dumped = ""
        dump(caller, to: &dumped)
        for shown in ["\(caller)", String(reflecting: caller), dumped, "\(caller.token!)"] {
            #expect(!shown.contains(token), "\(shown)")
        }
    }

    @Test func theSamePrincipalIsTheSameUserProvedTheSameWay() {
        let alice = Caller(user: "alice", groups: ["ops"], authentication: .accessToken, token: CallerToken("t1"))
        let renewed = Caller(user: "alice", groups: [], authentication: .accessToken, token: CallerToken("t2"))
        #expect(alice.isSamePrincipal(as: renewed), "a renewed token is the same user")
        #expect(!alice.isSamePrincipal(as: Caller(user: "alice", authentication: .clientToken)))
        #expect(!alice.isSamePrincipal(as: Caller(user: "bob", authentication: .accessToken)))
    }

    @Test func aSessionsRequestsActForItsOpener() async throws {
        let running = RunningGateway([stdioSpec("a")])
        let alice = Caller(user: "alice", authentication: .accessToken)
        let request = JSONRPCRequest(
            id: .int(0),
            method: MCPMethod.initialize,
            params: ["protocolVersion": "2025-06-18", "clientInfo": ["name": "t"], "capabilities": [:]]
        )
        let (session, _) = try await running.gateway.initialize(request, caller: alice)
        #expect(session.caller == alice)
        let admitted = running.gateway.admit(JSONRPCRequest(id: .int(1), method: MCPMethod.ping), session: session)
        #expect(admitted.caller == alice)
        await running.stop()
    }

    @Test func aStatelessRequestActsForItsOwnCaller() async throws {
        let running = RunningGateway([stdioSpec("a")])
        let bob = Caller(user: "bob", authentication: .accessToken)
        let request = StatelessRequestTests.request(MCPMethod.toolsList)
        guard case .call(let admitted) = running.gateway.admitStateless(request, in: nil, caller: bob) else {
            Issue.record("the request was not admitted")
            return await running.stop()
        }
        #expect(admitted.caller == bob && admitted.session.caller == bob)
        let connection = running.gateway.statelessConnection()
        guard case .call(let onPipe) = running.gateway.admitStateless(request, in: connection, caller: bob) else {
            Issue.record("the request was not admitted")
            return await running.stop()
        }
        #expect(onPipe.caller == bob, "a connection's stateless request acts for its own caller")
        await running.stop()
    }
}
