import Synchronization
import YrdenProtocol

/// What the gateway keeps asking of a server besides single requests (the resources clients follow, the
/// list changes it announces, the log level sessions want, news that a client's roots changed) and the
/// liveness probe, each said here in the era the server speaks, so that nothing above the transport asks
/// which era that is:
/// - the handshake era: `resources/subscribe` and `unsubscribe` per URI, `logging/setLevel` for the gateway's
///   session, `notifications/roots/list_changed`, `ping`; list changes come unasked;
/// - 2026-07-28: the followed URIs and list changes in the filter of one `subscriptions/listen` stream,
///   opened anew when they change; the log level and roots ride on each request, so there is nothing to
///   send; `server/discover` as the probe, since that era has no `ping`.
extension UpstreamClient {
    /// What the server was last asked to keep sending.
    struct Following: Sendable {
        /// The resources subscribed to (handshake era; a 2026-07-28 server's are in ``filter``).
        var resources: Set<String> = []
        /// The listen stream's filter as last opened; `nil` while none is open.
        var filter: JSONObject?
    }

    /// From now on the server sends the list changes its `capabilities` announce and the updates of exactly
    /// `uris`; only what changed since the last call is asked. Returns each URI the server refused to let
    /// be followed, with its reason (it is no longer counted as followed).
    package func follow(
        _ uris: [String],
        capabilities: JSONObject,
        timeout: Duration
    ) async -> [String: JSONRPCError] {
        let wanted = Set(uris)
        guard speaksHandshakeEra else {
            var filter = Self.listenFilter(capabilities)
            if !wanted.isEmpty { filter["resourceSubscriptions"] = .array(wanted.sorted().map { .string($0) }) }
            let opened: JSONObject? = filter.isEmpty ? nil : filter
            let changed = following.withLock { following in
                defer { following.filter = opened }
                return following.filter != opened
            }
            guard changed else { return [:] }
            if let opened { listen(opened) } else { endListening() }
            return [:]
        }
        let (added, removed) = following.withLock { following in
            defer { following.resources = wanted }
            return (wanted.subtracting(following.resources), following.resources.subtracting(wanted))
        }
        var refused: [String: JSONRPCError] = [:]
        var asks =
            added.map { (MCPMethod.resourcesSubscribe, $0) } + removed.map { (MCPMethod.resourcesUnsubscribe, $0) }
        await withTaskGroup(of: (String, JSONRPCError?).self) { group in
            // A reconnect asks again for every URI followed: at most ``asksAtOnce`` in flight.
            func askNext() {
                guard let (method, uri) = asks.popLast() else { return }
                group.addTask { (uri, await self.tell(method, uri, timeout: timeout)) }
            }
            for _ in 0..<Self.asksAtOnce { askNext() }
            for await (uri, error) in group {
                if let error, added.contains(uri) { refused[uri] = error }
                askNext()
            }
        }
        if !refused.isEmpty { following.withLock { $0.resources.subtract(refused.keys) } }
        return refused
    }

    /// Sessions want log messages of `level` or more severe. A handshake-era server that declares `logging`
    /// is told for the gateway's session, within `timeout`; a 2026-07-28 server is told on each request.
    package func setLogLevel(_ level: LoggingLevel, capabilities: JSONObject, timeout: Duration) async {
        guard speaksHandshakeEra, capabilities["logging"] != nil else { return }
        _ = try? await request(
            MCPMethod.loggingSetLevel,
            params: ["level": .string(level.rawValue)],
            options: RequestOptions(timeout: timeout)
        )
    }

    /// A client's roots changed: a handshake-era server is told, since the gateway declared `roots` to it; a
    /// 2026-07-28 server is sent roots with each request that needs them.
    package func rootsChanged() {
        guard speaksHandshakeEra else { return }
        notify(MCPMethod.rootsListChanged)
    }

    /// Asks the server whether it is still there, within `timeout`.
    package func probe(timeout: Duration) async throws(UpstreamError) {
        _ = try await request(probeMethod, params: nil, options: RequestOptions(timeout: timeout))
    }

    /// What ``probe(timeout:)`` sends: `ping`, or `server/discover` to a 2026-07-28 server.
    package var probeMethod: String { speaksHandshakeEra ? MCPMethod.ping : MCPMethod.serverDiscover }

    /// Whether requests carry `Mcp-Param-*` headers: a 2026-07-28 server over HTTP reads them.
    package var takesParamHeaders: Bool { !speaksHandshakeEra }

    /// The list changes a server's `capabilities` announce, as a listen filter's fields.
    static func listenFilter(_ capabilities: JSONObject) -> JSONObject {
        var filter: JSONObject = [:]
        if capabilities["tools"]?["listChanged"]?.boolValue == true { filter["toolsListChanged"] = true }
        if capabilities["prompts"]?["listChanged"]?.boolValue == true { filter["promptsListChanged"] = true }
        if capabilities["resources"]?["listChanged"]?.boolValue == true { filter["resourcesListChanged"] = true }
        return filter
    }

    /// How many `resources/subscribe` or `unsubscribe` requests one ``follow(_:capabilities:timeout:)`` has in
    /// flight at once.
    static let asksAtOnce = 8

    private var speaksHandshakeEra: Bool { modernStamp == nil }

    /// `method` (`resources/subscribe` or `unsubscribe`) of `uri`: the server's refusal, or the transport's
    /// failure as an error; `nil` when it took it.
    private func tell(_ method: String, _ uri: String, timeout: Duration) async -> JSONRPCError? {
        do {
            let answer = try await request(
                method,
                params: ["uri": .string(uri)],
                options: RequestOptions(timeout: timeout)
            )
            if case .failure(let error) = answer { return error }
            return nil
        } catch {
            return .internalError("the server did not take \(method): \(error.message)")
        }
    }
}
