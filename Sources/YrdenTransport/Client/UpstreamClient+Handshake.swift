import YrdenProtocol

extension UpstreamClient {
    /// The handshake's default grace past its deadline.
    package static let handshakeGrace: Duration = .seconds(1)

    /// The MCP handshake: `initialize` offering the latest revision, accepting any the gateway also speaks,
    /// then `notifications/initialized`. It times out `grace` after `timeout`, so a channel failing at the
    /// same deadline for its own reason (a legacy stream that never named its endpoint) reports that reason.
    package func initialize(
        clientInfo: JSONValue,
        capabilities: JSONObject,
        timeout: Duration,
        grace: Duration = UpstreamClient.handshakeGrace
    ) async throws(UpstreamError)
        -> UpstreamHandshake
    {
        switch try await handshake(clientInfo: clientInfo, capabilities: capabilities, timeout: timeout, grace: grace) {
        case .connected(let handshake): return handshake
        case .modernOnly(let error): throw UpstreamError(.protocol, "initialize was refused: \(error.message)")
        }
    }

    /// The handshake, telling a server that refused it because it speaks 2026-07-28 apart from other failures.
    package func handshake(
        clientInfo: JSONValue,
        capabilities: JSONObject,
        timeout: Duration,
        grace: Duration = UpstreamClient.handshakeGrace
    ) async throws(UpstreamError)
        -> HandshakeOutcome
    {
        let params: JSONValue = [
            "protocolVersion": .string(ProtocolVersion.latest),
            "capabilities": .object(capabilities),
            "clientInfo": clientInfo,
        ]
        let reply = try await request(
            MCPMethod.initialize,
            params: params,
            options: RequestOptions(timeout: timeout, grace: grace)
        )
        let result: JSONValue
        switch reply {
        case .success(let value): result = value
        case .failure(let error) where Self.refusesHandshake(error): return .modernOnly(error)
        case .failure(let error): throw UpstreamError(.protocol, "initialize was refused: \(error.message)")
        }
        guard let version = result["protocolVersion"]?.stringValue else {
            throw UpstreamError(.protocol, "initialize answered without a protocolVersion")
        }
        guard ProtocolVersion.isSupported(version) else {
            throw UpstreamError(.protocol, "the server speaks MCP \(version), which the gateway does not")
        }
        notify(MCPMethod.initialized)
        return .connected(
            UpstreamHandshake(
                protocolVersion: version,
                capabilities: result["capabilities"]?.objectValue ?? [:],
                serverInfo: result["serverInfo"] ?? [:],
                instructions: result["instructions"]?.stringValue
            )
        )
    }
}

/// What an `initialize` came to, besides the failures it throws.
package enum HandshakeOutcome: Sendable {
    case connected(UpstreamHandshake)
    /// Refused with -32022 naming 2026-07-28: the server is of that era (or locked itself into it).
    case modernOnly(JSONRPCError)
}
