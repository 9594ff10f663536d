import Logging
import Synchronization
import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTransport

@testable import YrdenEngine

/// Channels for these tests: each answers `initialize`, `ping` and `tools/list` like a small MCP server,
/// or never answers at all, and takes `closeDelay` to close (as a child process that is slow to exit).
final class ScriptedChannels: UpstreamChannelFactory {
    struct Script: Sendable {
        var answers = true
        var closeDelay: Duration = .zero
        var protocolVersion = "2025-06-18"
    }

    private let script: Mutex<Script>
    private let live = Mutex<[String: ScriptedChannel]>([:])
    private let opened = Mutex<[String: Int]>([:])
    /// `open <id>` and `closed <id>` in the order they happened.
    let journal = Journal()

    init(_ script: Script = Script()) {
        self.script = Mutex(script)
    }

    func change(_ edit: (inout Script) -> Void) { script.withLock { edit(&$0) } }

    func opens(_ id: String) -> Int { opened.withLock { $0[id] ?? 0 } }

    /// Ends server `id`'s channel as a child process that exits would.
    func crash(_ id: String) {
        live.withLock { $0[id] }?.handler.closed(UpstreamError(.process, "the server exited with status 1"))
    }

    func open(
        _ route: ChannelRoute,
        for spec: ServerSpec,
        handler: UpstreamChannelHandler
    ) throws(UpstreamError) -> any UpstreamChannel {
        let journal = self.journal
        let id = spec.id
        let channel = ScriptedChannel(script: { [self] in script.withLock { $0 } }, handler: handler) {
            journal.append("closed \(id)")
        }
        live.withLock { $0[spec.id] = channel }
        opened.withLock { $0[spec.id, default: 0] += 1 }
        journal.append("open \(id)")
        return channel
    }
}

/// What happened, in order, written from any thread.
final class Journal: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var entries: [String] { lines.withLock { $0 } }
}

final class ScriptedChannel: UpstreamChannel {
    /// The factory's script as it is now: a change applies to channels already open too.
    let script: @Sendable () -> ScriptedChannels.Script
    let handler: UpstreamChannelHandler
    let onClosed: @Sendable () -> Void

    init(
        script: @escaping @Sendable () -> ScriptedChannels.Script,
        handler: UpstreamChannelHandler,
        onClosed: @escaping @Sendable () -> Void
    ) {
        self.script = script
        self.handler = handler
        self.onClosed = onClosed
    }

    func send(_ frame: [UInt8]) throws(UpstreamError) {
        let script = self.script()
        guard script.answers, let value = try? JSONValue.parse(frame),
            case .request(let request)? = try? JSONRPCMessage(value)
        else { return }
        let result: JSONValue
        switch request.method {
        case MCPMethod.initialize:
            result = [
                "protocolVersion": .string(script.protocolVersion),
                "capabilities": ["tools": [:]],
                "serverInfo": ["name": "scripted", "version": "1.0"],
            ]
        case MCPMethod.toolsList:
            result = ["tools": [["name": "echo", "inputSchema": ["type": "object"]]]]
        default:
            result = [:]
        }
        let answer = JSONRPCMessage.response(JSONRPCResponse(id: request.id, result: result)).serialized()
        let handler = self.handler
        // Delivered later, as a transport's reader would, never inside `send`.
        Task { handler.frame(answer) }
    }

    func close() async {
        let delay = script().closeDelay
        if delay > .zero { try? await Task.sleep(for: delay) }
        onClosed()
    }
}

/// A running gateway over scripted channels, and waits on its events with a deadline.
struct RunningGateway {
    let gateway: Gateway
    let channels: ScriptedChannels
    let task: Task<Void, Never>

    init(
        _ specs: [ServerSpec],
        channels: ScriptedChannels = ScriptedChannels(),
        credentials: (any UpstreamCredentials)? = nil
    ) {
        self.channels = channels
        let gateway = Gateway(
            config: GatewayConfig(servers: specs),
            logger: Logger(label: "test"),
            connector: UpstreamConnector(channels: channels, credentials: credentials)
        )
        self.gateway = gateway
        task = Task { await gateway.run() }
    }

    init(observing gateway: Gateway, channels: ScriptedChannels, task: Task<Void, Never>) {
        self.gateway = gateway
        self.channels = channels
        self.task = task
    }

    /// Waits until `condition` holds for the snapshot, for at most `limit`; `false` if it never did.
    @discardableResult
    func until(
        within limit: Duration = .seconds(10),
        _ condition: @escaping @Sendable (Gateway.Snapshot) -> Bool
    ) async -> Bool {
        let gateway = self.gateway
        let events = gateway.events.subscribe()
        if condition(gateway.snapshot) { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in events where condition(gateway.snapshot) { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first || condition(gateway.snapshot)
        }
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}

func stdioSpec(
    _ id: String,
    disabled: Bool = false,
    reconnect: ReconnectPolicy = .backoff(
        initialDelay: .milliseconds(50),
        maxDelay: .milliseconds(50),
        maxAttempts: nil
    )
) -> ServerSpec {
    ServerSpec(
        id: id,
        transport: .stdio(command: "scripted", args: [], env: [:], cwd: nil),
        reconnect: reconnect,
        disabled: disabled
    )
}

/// What the engine publishes about a server's connections: its state, its last handshake and era, its last
/// lists, and its last failure with when it happened.
@Suite struct UpstreamConnectionTests {
    @Test func aConnectedServerPublishesItsHandshakeEraAndLists() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        let status = try #require(running.gateway.snapshot.status(of: "a"))
        #expect(status.handshake?.protocolVersion == "2025-06-18")
        #expect(status.lastHandshake?.serverInfo == ["name": "scripted", "version": "1.0"])
        #expect(status.era == "handshake")
        #expect(status.counts.tools == 1)
        #expect(status.lastFailure == nil)
        await running.stop()
        #expect(running.gateway.snapshot.links["a"]?.state == .stopped)
    }

    @Test func aFailureIsKeptWithItsTimeWhileTheNextAttemptRunsAndClearedOnceConnected() async throws {
        let channels = ScriptedChannels()
        let running = RunningGateway([stdioSpec("a")], channels: channels)
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        channels.change { $0.answers = false }
        let before = WallClock.now()
        channels.crash("a")
        #expect(await running.until { if case .connecting(2) = $0.links["a"]?.state { true } else { false } })
        let failure = try #require(running.gateway.snapshot.links["a"]?.lastFailure)
        #expect(failure.error.kind == .process)
        #expect(failure.at >= before - 1 && failure.at <= WallClock.now() + 1)
        let status = try #require(running.gateway.snapshot.status(of: "a"))
        #expect(status.lastHandshake?.protocolVersion == "2025-06-18", "the handshake is kept while down")
        #expect(status.handshake == nil)
        channels.change { $0.answers = true }
        channels.crash("a")
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(running.gateway.snapshot.links["a"]?.lastFailure == nil)
        await running.stop()
    }

    @Test func aDisconnectedServerKeepsItsLastListsAndHandshake() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(try await running.gateway.disconnectServer("a"))
        let link = try #require(running.gateway.snapshot.links["a"])
        #expect(link.state == .disconnected)
        #expect(link.client == nil)
        #expect(link.catalog?.tools.count == 1)
        #expect(link.lastHandshake?.protocolVersion == "2025-06-18")
        #expect(running.gateway.snapshot.catalog.tools.isEmpty, "a disconnected server's tools leave /mcp")
        try running.gateway.connectServer("a")
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(running.channels.opens("a") == 2)
        await running.stop()
    }

    @Test func aRestartOpensAFreshConnection() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(try await running.gateway.restartServer("a"))
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(running.channels.opens("a") == 2)
        await running.stop()
    }

    @Test func aRemovedServerIsForgotten() async throws {
        let running = RunningGateway([stdioSpec("a")])
        #expect(await running.until { $0.links["a"]?.state.isConnected == true })
        #expect(try await running.gateway.removeServer("a"))
        #expect(running.gateway.snapshot.status(of: "a") == nil)
        try running.gateway.addServer(stdioSpec("a", disabled: true))
        let status = try #require(running.gateway.snapshot.status(of: "a"))
        #expect(status.lastHandshake == nil && status.lastFailure == nil)
        await running.stop()
    }

    @Test func anUnusableConfigFailsWithKindConfigAndIsNotRetried() async throws {
        // As the config holds a reference it cannot resolve: the text as written, in place of a value.
        let spec = ServerSpec(
            id: "a",
            transport: .stdio(command: "scripted", args: [], env: ["API_KEY": "${input:api-key}"], cwd: nil),
            unresolved: [
                UnresolvedReference(
                    path: "mcpServers.a.env.API_KEY",
                    message: "${input:api-key} is a VS Code input prompt",
                    fix: "set it"
                )
            ]
        )
        let running = RunningGateway([spec])
        #expect(await running.until { $0.links["a"]?.state.lastError != nil })
        guard case .failed(let error, _, nil)? = running.gateway.snapshot.links["a"]?.state else {
            Issue.record(
                "expected failed without a retry, got \(String(describing: running.gateway.snapshot.links["a"]?.state))"
            )
            return
        }
        #expect(error.kind == .config)
        #expect(error.message.contains("${input:api-key} is a VS Code input prompt"), "the reference is named")
        #expect(running.channels.opens("a") == 0)
        await running.stop()
    }

    @Test func anOAuthServerWithoutCredentialsFailsWithKindAuth() async throws {
        let spec = ServerSpec(
            id: "remote",
            transport: .http(
                url: "https://example.com/mcp",
                headers: [:],
                auth: .oauth(OAuthSpec(scopes: [])),
                fallbackToSSE: false
            ),
            reconnect: .never
        )
        let running = RunningGateway([spec])
        #expect(await running.until { $0.links["remote"]?.state.lastError != nil })
        #expect(running.gateway.snapshot.links["remote"]?.state.lastError?.kind == .auth)
        #expect(running.channels.opens("remote") == 0)
        await running.stop()
    }

    @Test func stoppingTheGatewayWaitsForEveryConnectionToClose() async throws {
        let channels = ScriptedChannels(ScriptedChannels.Script(closeDelay: .milliseconds(300)))
        let running = RunningGateway([stdioSpec("a"), stdioSpec("b")], channels: channels)
        #expect(await running.until { $0.links.values.allSatisfy(\.state.isConnected) })
        let started = ContinuousClock.now
        await running.stop()
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(running.gateway.snapshot.links.values.allSatisfy { $0.state == .stopped })
    }
}
