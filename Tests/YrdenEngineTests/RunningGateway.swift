import Logging
import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting
import YrdenTransport

@testable import YrdenEngine

/// A running gateway over fake upstreams, as a downstream client drives it: sessions, calls and the waits on
/// its events, each with a deadline that matters only when something is broken.
struct RunningGateway: GatewayWaits {
    let gateway: Gateway
    let channels: FakeUpstreams
    let task: Task<Void, Never>

    init(
        _ specs: [ServerSpec],
        channels: FakeUpstreams = FakeUpstreams(),
        time: any TimeSource = SystemTime(),
        credentials: (any UpstreamCredentials)? = nil,
        settings: GatewaySettings = GatewaySettings(),
        toolPins: ToolPins? = nil
    ) {
        self.channels = channels
        let gateway = Gateway(
            config: GatewayConfig(gateway: settings, servers: specs),
            logger: Logger(label: "test"),
            connector: UpstreamConnector(channels: channels, time: time, credentials: credentials),
            toolPins: toolPins
        )
        self.gateway = gateway
        task = Task { await gateway.run() }
    }

    init(observing gateway: Gateway, channels: FakeUpstreams, task: Task<Void, Never>) {
        self.gateway = gateway
        self.channels = channels
        self.task = task
    }

    /// Server `id`'s fake.
    subscript(_ id: String) -> FakeUpstream { channels[id] }

    /// A new downstream session, as a client's `initialize` opens it, declaring `capabilities`.
    func openSession(capabilities: JSONObject = [:], scope: CatalogScope = .gateway) async throws -> DownstreamSession {
        let request = JSONRPCRequest(
            id: .int(0),
            method: MCPMethod.initialize,
            params: [
                "protocolVersion": "2025-06-18", "clientInfo": ["name": "test", "version": "1"],
                "capabilities": .object(capabilities),
            ]
        )
        return try await gateway.initialize(request, scope: scope).0
    }

    /// Sends one request as `session`'s client would and returns the answer (`nil`: the client cancelled it),
    /// giving up after 10 s of real time so a request that hangs fails the test instead of stalling it.
    func send(
        _ method: String,
        _ params: JSONValue? = nil,
        id: JSONRPCID = .int(1),
        in session: DownstreamSession,
        related: RelatedMessageSink? = nil
    ) async -> Answer {
        let gateway = self.gateway
        let request = JSONRPCRequest(id: id, method: method, params: params)
        let answer = await withDeadline { await gateway.respond(to: request, session: session, related: related) }
        switch answer {
        case nil: return .hung
        case .some(nil): return .none
        case .some(let response?): return .response(response)
        }
    }

    /// `tools/call` of `name` with `arguments`, optionally asking for progress with `progressToken`.
    func call(
        _ name: String,
        _ arguments: JSONValue = [:],
        id: JSONRPCID = .int(1),
        progressToken: JSONValue? = nil,
        in session: DownstreamSession,
        related: RelatedMessageSink? = nil
    ) async -> Answer {
        var params: JSONObject = ["name": .string(name), "arguments": arguments]
        if let progressToken { params["_meta"] = ["progressToken": progressToken] }
        return await send(MCPMethod.toolsCall, .object(params), id: id, in: session, related: related)
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}

/// What a downstream request ended with.
enum Answer: Sendable {
    case response(JSONRPCResponse)
    /// No response: the client cancelled the request.
    case none
    /// Nothing within the test's deadline.
    case hung

    var response: JSONRPCResponse? {
        if case .response(let response) = self { response } else { nil }
    }

    var result: JSONValue? { try? response?.outcome.get() }

    var error: JSONRPCError? {
        guard case .failure(let error)? = response?.outcome else { return nil }
        return error
    }
}

func stdioSpec(
    _ id: String,
    prefix: String? = nil,
    timeouts: Timeouts = Timeouts(),
    disabled: Bool = false,
    reconnect: ReconnectPolicy = .backoff(
        initialDelay: .milliseconds(50),
        maxDelay: .milliseconds(50),
        maxAttempts: nil
    ),
    protocolEra: UpstreamProtocol = .auto
) -> ServerSpec {
    ServerSpec(
        id: id,
        transport: .stdio(command: "scripted", args: [], env: [:], cwd: nil),
        prefix: prefix,
        timeouts: timeouts,
        reconnect: reconnect,
        protocolEra: protocolEra,
        disabled: disabled
    )
}

extension JSONRPCMessage {
    /// The method of a request or notification; `nil` for a response.
    var method: String? {
        switch self {
        case .request(let request): request.method
        case .notification(let notification): notification.method
        case .response: nil
        }
    }
}
