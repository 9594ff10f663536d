import Logging
import YrdenConfig
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol

/// `/tool-pins` (every pinned tool definition, changed ones first) and
/// `/servers/{id}/tools/{name}/approve` (make a changed tool's new definition the pinned one).
///
/// Approvals do not go through the config store: pins are not config, and an approval writes only the pin
/// file, before it answers (off the event loop: the handler waits for the gateway's pin saver).
extension AdminAPI {
    /// Built off the event loop (``HeavyReads``): 10,000 pins, with both definitions and the diff of each
    /// changed one, took the loop a few hundred milliseconds while 2,000 definitions changed.
    func listToolPins() async -> HTTPResponse {
        let gateway = self.gateway
        return await heavyReads.answer(.toolPins) {
            let mode = gateway.pinning.mode
            let pins = gateway.pinning.entries.map {
                ToolPinView.json(server: $0.server, tool: $0.tool, pin: $0.pin, mode: mode)
            }
            return ["mode": .string(mode.rawValue), "pins": .array(pins)]
        }
    }

    /// The body is optional; `{"digest": "…"}` approves only the pending definition with that digest.
    func approveTool(_ tool: String, of id: String, _ request: HTTPRequest) async throws(AdminProblem) -> HTTPResponse {
        _ = try status(of: id)
        let digest = try Self.expectedDigest(request)
        do {
            try await gateway.pinning.approve(tool, of: id, digest: digest)
        } catch {
            throw Self.problem(for: error, tool: tool)
        }
        logger.notice("admin API: tool definition approved", metadata: ["server": "\(id)", "tool": "\(tool)"])
        guard let pin = gateway.pinning.book[id, tool] else { throw Self.noPin(tool, of: id) }
        return FrontResponses.json(200, ToolPinView.json(server: id, tool: tool, pin: pin, mode: gateway.pinning.mode))
    }

    private static func expectedDigest(_ request: HTTPRequest) throws(AdminProblem) -> String? {
        guard !request.body.isEmpty else { return nil }
        let body = try AdminRequestBody.parse(request, as: AdminRequestBody.json).get()
        guard case .object(let object) = body, object.allSatisfy({ $0.key == "digest" }) else {
            throw .badRequest(#"the body must be {"digest": "<the pending definition's digest>"}, or empty"#)
        }
        guard let digest = object["digest"] else { return nil }
        guard let text = digest.stringValue else { throw .badRequest("digest must be a string") }
        return text
    }

    private static func problem(for error: ToolApprovalError, tool: String) -> AdminProblem {
        switch error {
        case .unknownServer(let id):
            return .unknownServer(id)
        case .refused(.unknownTool(let server, let tool)):
            return noPin(tool, of: server)
        case .refused(.nothingPending(let server, let tool)):
            return .conflict(
                "tool \(JSONValue.string(tool).jsonText) of server \(server) has not changed since it was pinned: "
                    + "no new definition waits for approval"
            )
        case .refused(.digestMismatch(let server, let tool, let pending)):
            return .conflict(
                "the definition of tool \(JSONValue.string(tool).jsonText) of server \(server) waiting for approval "
                    + "is now \(pending), not the one sent; read it again (GET /api/v1/tool-pins) before approving"
            )
        case .busy:
            return AdminProblem(
                status: 503,
                title: "Busy",
                detail: "\(ToolPins.maxWaitingApprovals) approvals are waiting for the pin file to be written; "
                    + "nothing was approved, try again in a second",
                headers: ["Retry-After": "1"]
            )
        case .notSaved(let reason):
            return AdminProblem(
                status: 500,
                title: "Not saved",
                detail: "tool \(JSONValue.string(tool).jsonText) is approved until the gateway restarts, but the pins "
                    + "could not be saved: \(reason)"
            )
        }
    }

    private static func noPin(_ tool: String, of server: String) -> AdminProblem {
        .notFound("server \(server) has no pinned tool \(JSONValue.string(tool).jsonText)")
    }
}
