import Logging
import Prometheus
import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer

/// The REST admin API under `/api/v1`, as `openapi.yaml` describes it.
///
/// Every request is checked for origin and token first, then resolved against the route table to one
/// operation; each operation's handler lives with its resource (`AdminAPI+Servers.swift`, …) and throws an
/// ``AdminProblem`` for anything that is not its success answer.
package struct AdminAPI: Sendable {
    static let prefix = "/api/v1/"
    let gateway: Gateway
    let store: ConfigStore
    let access: AdminAccess
    let logger: Logger
    /// The listings that grow with the catalog, made off the event loop.
    let heavyReads: HeavyReads
    /// Where `mcpb` bundles are unpacked: the gateway's data directory, `nil` when it has none.
    let dataDirectory: String?

    init(
        gateway: Gateway,
        store: ConfigStore,
        adminToken: String?,
        logger: Logger,
        metrics: PrometheusCollectorRegistry? = nil,
        dataDirectory: String? = nil
    ) {
        self.gateway = gateway
        self.store = store
        self.access = AdminAccess(
            token: adminToken,
            listenHost: gateway.settings.listenHost,
            publicURL: gateway.settings.publicURL
        )
        self.logger = logger
        heavyReads = HeavyReads(registry: metrics)
        self.dataDirectory = dataDirectory
    }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if let refusal = access.refusal(for: request.headers) {
            return Self.problem(for: refusal).response
        }
        switch AdminRouting(method: request.method, path: request.path) {
        case .notFound:
            return AdminProblem.notFound("there is no admin API path \(request.path)").response
        case .methodNotAllowed(let allowed):
            return AdminProblem.methodNotAllowed(request.method, allowed: allowed).response
        case .operation(let operation):
            return await audited(request) {
                do throws(AdminProblem) {
                    return try await perform(operation, request)
                } catch {
                    return error.response
                }
            }
        }
    }

    private func perform(
        _ operation: AdminOperation,
        _ request: HTTPRequest
    ) async throws(AdminProblem)
        -> HTTPResponse
    {
        switch operation {
        case .listServers: return await listServers()
        case .createServer: return try await createServer(request)
        case .getServer(let id): return try await getServer(id)
        case .replaceServer(let id): return try await replaceServer(id, request)
        case .patchServer(let id): return try await patchServer(id, request)
        case .deleteServer(let id): return try await deleteServer(id, request)
        case .connectServer(let id): return try await connectServer(id)
        case .disconnectServer(let id): return try await disconnectServer(id)
        case .restartServer(let id): return try await restartServer(id)
        case .startServerAuth(let id): return try await startServerAuth(id)
        case .completeServerAuth(let id): return try await completeServerAuth(id, request)
        case .deleteServerTokens(let id): return try await deleteServerTokens(id)
        case .listServerTools(let id): return try await listServerCatalog(id, kinds: [.tools], request)
        case .listServerPrompts(let id): return try await listServerCatalog(id, kinds: [.prompts], request)
        case .listServerResources(let id):
            return try await listServerCatalog(id, kinds: [.resources, .resourceTemplates], request)
        case .listTools: return await listTools()
        case .listToolPins: return await listToolPins()
        case .approveTool(let id, let tool): return try await approveTool(tool, of: id, request)
        case .listLogs: return try await listLogs(request)
        case .streamEvents: return try streamEvents(request)
        case .getConfig: return await getConfig()
        case .replaceConfig: return try await replaceConfig(request)
        case .listProfiles: return await listProfiles()
        case .getProfile(let name): return try await getProfile(name)
        case .putProfile(let name): return try await putProfile(name, request)
        case .deleteProfile(let name): return try await deleteProfile(name)
        case .listProfileTools(let name): return try await listProfileTools(name)
        }
    }

    static func problem(for refusal: AdminAccess.Refusal) -> AdminProblem {
        switch refusal {
        case .foreignOrigin(let origin):
            .forbidden("requests from \(origin) are not allowed: the admin API serves only the gateway's own origin")
        case .crossSite:
            .forbidden("cross-site requests are not allowed: the admin API serves only the gateway's own pages")
        case .foreignHost(let host):
            .forbidden("\(host) is not a name of this gateway; use its listen address or 127.0.0.1")
        case .missingToken:
            .unauthorized(tokenSent: false)
        case .wrongToken:
            .unauthorized(tokenSent: true)
        }
    }
}
