import YrdenConfig
import YrdenEngine
import YrdenHTTPServer

/// Operators' changes in the audit trail: every admin request past the access check that is not a read
/// (`GET`, `HEAD`), with the status it was answered (a refused change is recorded too: someone tried it).
extension AdminAPI {
    /// Runs `perform` and records it when it is a change.
    func audited(_ request: HTTPRequest, _ perform: () async -> HTTPResponse) async -> HTTPResponse {
        guard request.method != "GET", request.method != "HEAD" else { return await perform() }
        let started = ContinuousClock.now
        let response = await perform()
        gateway.recordAdminChange(
            user: gateway.settings.adminToken == nil ? "anonymous" : "admin",
            method: request.method,
            path: request.path,
            status: response.status,
            duration: .now - started
        )
        return response
    }
}
