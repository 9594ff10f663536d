import Logging
import Testing
import YrdenConfig
import YrdenProtocol

@testable import YrdenEngine

/// The one dispatch of client messages, as every downstream transport sees it: which message opens a
/// session, which runs in one, which is refused and how.
@Suite struct InboundStepTests {
    let gateway = Gateway(config: GatewayConfig(servers: []), logger: Logger(label: "test"))

    private func request(
        _ method: String,
        id: Int = 1,
        params: JSONValue? = nil
    ) -> Result<JSONRPCMessage, JSONRPCError> {
        .success(.request(JSONRPCRequest(id: .int(id), method: method, params: params)))
    }

    private func error(of response: JSONRPCResponse) -> JSONRPCError? {
        guard case .failure(let error) = response.outcome else { return nil }
        return error
    }

    private func openSession() throws -> DownstreamSession {
        try gateway.sessions.create(protocolVersion: "2025-06-18", clientInfo: nil)
    }

    @Test func initializeOpensASessionOnlyWhenThereIsNone() throws {
        guard case .initialize(let call) = gateway.receive(request("initialize"), rawID: .int(1), session: nil) else {
            Issue.record("initialize without a session opens one")
            return
        }
        #expect(call.id == .int(1))
        let step = gateway.receive(request("initialize", id: 2), rawID: .int(2), session: try openSession())
        guard case .answer(let response) = step else {
            Issue.record("a second initialize is answered at once")
            return
        }
        #expect(response.id == .int(2))
        #expect(error(of: response)?.code == -32600)
    }

    @Test func requestsRunInTheirSessionAndNeedOne() throws {
        let session = try openSession()
        guard
            case .request(let call, let owner) = gateway.receive(
                request("tools/list", id: 7),
                rawID: .int(7),
                session: session
            )
        else {
            Issue.record("a request in a session runs there")
            return
        }
        #expect(call.id == .int(7))
        #expect(owner === session)
        guard case .needsSession(let id) = gateway.receive(request("tools/list", id: 8), rawID: .int(8), session: nil)
        else {
            Issue.record("a request without a session is refused")
            return
        }
        #expect(id == .int(8))
    }

    @Test func aStatelessEraRequestWithoutASessionIsServedStatelessly() {
        let params: JSONValue = ["_meta": ["io.modelcontextprotocol/protocolVersion": "2026-07-28"]]
        guard
            case .stateless(let call) = gateway.receive(
                request("tools/list", params: params),
                rawID: .int(1),
                session: nil
            )
        else {
            Issue.record("a stateless-era request goes the stateless way")
            return
        }
        #expect(call.method == "tools/list")
    }

    @Test func unparseableMessagesAreAnsweredWithTheirOwnErrorAndID() {
        let error = JSONRPCError.invalidRequest("missing method")
        guard case .answer(let response) = gateway.receive(.failure(error), rawID: .string("x"), session: nil) else {
            Issue.record("a malformed message is answered at once")
            return
        }
        #expect(response.id == .string("x"))
        #expect(self.error(of: response) == error)
    }

    @Test func notificationsAreTakenInASessionAndCancelTheCallTheyName() throws {
        let session = try openSession()
        let admitted = gateway.admit(JSONRPCRequest(id: .int(3), method: "tools/call", params: nil), session: session)
        let cancel = JSONRPCNotification(method: MCPMethod.cancelled, params: ["requestId": 3, "reason": "user"])
        guard case .accepted = gateway.receive(.success(.notification(cancel)), rawID: nil, session: session) else {
            Issue.record("a notification in a session is taken")
            return
        }
        #expect(admitted.session.finish(.int(3)), "the call was marked cancelled by its client")
        guard case .needsSession(nil) = gateway.receive(.success(.notification(cancel)), rawID: nil, session: nil)
        else {
            Issue.record("a notification without a session needs one")
            return
        }
    }

    @Test func aCallItsClientCancelledStaysUnansweredWhenTheSessionEndsBeforeItFinishes() throws {
        let session = try openSession()
        let admitted = gateway.admit(JSONRPCRequest(id: .int(5), method: "tools/call", params: nil), session: session)
        let cancel = JSONRPCNotification(method: MCPMethod.cancelled, params: ["requestId": 5, "reason": "user"])
        _ = gateway.receive(.success(.notification(cancel)), rawID: nil, session: session)
        // stdin closed right behind the cancellation: the session ends while the call's task still runs.
        session.end()
        #expect(admitted.session.finish(.int(5)), "the call's answer is still suppressed")
    }
}
