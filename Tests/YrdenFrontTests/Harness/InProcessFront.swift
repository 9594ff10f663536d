import Logging
import Prometheus
import YrdenConfig
import YrdenControl
import YrdenEngine
import YrdenHTTPServer
import YrdenProtocol
import YrdenTesting
import YrdenTransport

@testable import YrdenFront

/// The gateway's front as a client sees it, without a socket: a real `Gateway` over ``FakeUpstreams``, its
/// `ConfigStore` (in memory), and the real ``FrontRouter``, driven with in-memory requests.
///
/// What the router answers is what libmicrohttpd would send: a status, headers, and a body that is whole or
/// a stream (``FrontAnswer``). Every wait has a real-time limit that matters only when something is broken,
/// so a test that would hang fails instead. The HTTP layer's own rules (body limits, chunking, connection
/// deadlines) are not here: `YrdenHTTPServerTests` and the interop suite cover those over a socket.
struct InProcessFront: GatewayWaits {
    let gateway: Gateway
    let upstreams: FakeUpstreams
    let store: ConfigStore
    let router: FrontRouter
    private let running: Task<Void, Never>

    /// The name requests are sent to (`Host`), one the gateway answers to on its default loopback listener.
    static let host = "127.0.0.1:8750"

    /// A gateway whose config document is `config` (as a file would hold it); by default one server, `a`,
    /// whose fake lists one tool, `echo`. Every `mcpServers` entry is served by `upstreams`, whatever its
    /// command says.
    init(
        _ config: JSONObject = ["mcpServers": ["a": InProcessFront.entry]],
        upstreams: FakeUpstreams = FakeUpstreams(),
        toolPins: ToolPins? = nil
    ) throws {
        let document = ConfigDocument(config)
        let decoded = try document.decoded(environment: [:], source: "test")
        let logger = Logger(label: "front-test")
        let gateway = Gateway(
            config: decoded,
            logger: logger,
            connector: UpstreamConnector(channels: upstreams, time: upstreams.time),
            toolPins: toolPins
        )
        let store = ConfigStore(document: document, path: nil, environment: [:], gateway: gateway, logger: logger)
        self.gateway = gateway
        self.upstreams = upstreams
        self.store = store
        router = FrontRouter(
            gateway: gateway,
            store: store,
            signIns: SignInControl(gateway: gateway),
            settings: decoded.gateway,
            metrics: PrometheusCollectorRegistry(),
            logger: logger
        )
        running = Task { await gateway.run() }
    }

    /// An `mcpServers` entry the fakes serve: a stdio command, never run.
    static let entry: JSONValue = ["command": "scripted"]

    /// Server `id`'s fake.
    subscript(_ id: String) -> FakeUpstream { upstreams[id] }

    /// Sends one request through the router, as libmicrohttpd hands it over once whole. `Host` is set to the
    /// gateway's own name unless `headers` sets it; `nil` when no answer came within `limit`.
    func send(
        _ method: String,
        _ path: String,
        query: [String: String] = [:],
        headers: [(String, String)] = [],
        body: [UInt8] = [],
        within limit: Duration = .seconds(10)
    ) async -> FrontAnswer? {
        var fields = HTTPHeaders(headers)
        if !fields.contains("Host") { fields.add(name: "Host", value: Self.host) }
        let request = HTTPRequest(method: method, path: path, query: query, headers: fields, body: body)
        let router = self.router
        guard let response = await withDeadline(limit, { await router.handle(request) }) else { return nil }
        return FrontAnswer(response)
    }

    /// ``send(_:_:query:headers:body:within:)`` with a JSON body.
    func send(
        _ method: String,
        _ path: String,
        headers: [(String, String)] = [],
        json: JSONValue,
        within limit: Duration = .seconds(10)
    ) async -> FrontAnswer? {
        await send(method, path, headers: headers, body: json.serialized(), within: limit)
    }

    /// Stops the gateway as shutdown does: connections closed, sessions ended, streams finished.
    func stop() async {
        running.cancel()
        await running.value
    }
}
