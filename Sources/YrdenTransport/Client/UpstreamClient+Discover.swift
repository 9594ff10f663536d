import YrdenProtocol

/// The 2026-07-28 envelope one hop stamps on every request: the gateway's version, capabilities and identity.
package struct ModernStamp: Sendable, Hashable {
    package var version: String
    package var capabilities: JSONObject
    package var clientInfo: JSONValue
    /// The per-request log opt-in; `nil` asks for no log messages.
    package var logLevel: LoggingLevel?

    package init(version: String = ProtocolVersion.modern, capabilities: JSONObject, clientInfo: JSONValue) {
        self.version = version
        self.capabilities = capabilities
        self.clientInfo = clientInfo
    }

    func stamp(_ params: JSONValue?) -> JSONValue {
        let stamped = ModernEnvelope.stamped(
            params,
            version: version,
            capabilities: capabilities,
            clientInfo: clientInfo
        )
        guard let logLevel, var object = stamped.objectValue, var meta = object["_meta"]?.objectValue else {
            return stamped
        }
        meta[ModernEnvelope.logLevelKey] = .string(logLevel.rawValue)
        object["_meta"] = .object(meta)
        return .object(object)
    }
}

/// What the `server/discover` probe found.
package enum DiscoverVerdict: Sendable {
    /// The server speaks 2026-07-28; what it said about itself, as a handshake would have.
    case modern(UpstreamHandshake)
    /// Not a 2026-07-28 server (any error, no answer in time, or no modern version offered): the reason, for
    /// the log; the handshake comes next.
    case handshakeEra(String)
}

extension UpstreamClient {
    /// The era probe of MCP 2026-07-28 (`server/discover` before anything else). Any error or silence means
    /// an older server, never keyed to one error code, as the spec asks; HTTP 400, 404 and 405 without a
    /// JSON-RPC answer likewise. Other transport failures (unreachable, refused credentials) are no verdict:
    /// they are thrown, as the handshake would have thrown them.
    package func discover(_ stamp: ModernStamp, timeout: Duration) async throws(UpstreamError) -> DiscoverVerdict {
        let reply: Result<JSONValue, JSONRPCError>
        do {
            reply = try await request(
                MCPMethod.serverDiscover,
                params: stamp.stamp(nil),
                options: RequestOptions(timeout: timeout)
            )
        } catch  where error.kind == .timeout {
            return .handshakeEra("no answer to server/discover within \(timeout.components.seconds) s")
        } catch  where [400, 404, 405].contains(error.httpStatus ?? 0) {
            return .handshakeEra("server/discover was refused with HTTP \(error.httpStatus ?? 0)")
        }
        switch reply {
        case .failure(let error):
            return .handshakeEra("server/discover was answered with error \(error.code) (\(error.message.prefix(120)))")
        case .success(let result):
            let versions = result["supportedVersions"]?.arrayValue?.compactMap(\.stringValue) ?? []
            guard versions.contains(stamp.version) else {
                return .handshakeEra(
                    "server/discover offered no \(stamp.version) (\(versions.joined(separator: ", ")))"
                )
            }
            return .modern(
                UpstreamHandshake(
                    protocolVersion: stamp.version,
                    capabilities: result["capabilities"]?.objectValue ?? [:],
                    serverInfo: result["_meta"]?[ModernEnvelope.serverInfoKey] ?? [:],
                    instructions: result["instructions"]?.stringValue
                )
            )
        }
    }

    /// Whether `error`, an answer to `initialize`, says the server speaks only 2026-07-28: it locked itself
    /// into that era (a probe that timed out here still reached it) or never spoke another.
    package static func refusesHandshake(_ error: JSONRPCError) -> Bool {
        guard error.code == JSONRPCError.unsupportedVersionCode else { return false }
        let supported = error.data?["supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return supported.contains(ProtocolVersion.modern)
    }
}
