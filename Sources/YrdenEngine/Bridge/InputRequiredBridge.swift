import FoundationEssentials
import YrdenProtocol
import YrdenTransport

/// Turns a 2026-07-28 upstream's `input_required` result into real requests to a handshake-era client, and
/// its answers into the retry the upstream asked for.
///
/// Each round sends every entry of `inputRequests` to the client at once (through the call's relay, so the
/// client's declared capabilities are honoured), then repeats the original request under a new id with
/// `inputResponses` under the same keys and `requestState` byte for byte. A round with only `requestState`
/// is retried after a short pause. At most ``maxRounds``; a refusal or error of the client ends the call.
struct InputRequiredBridge {
    let client: UpstreamClient
    let relay: SessionRelay?
    /// The gateway's clock, for the pause before a retry that carries no answers.
    let time: any TimeSource
    let server: String

    static let maxRounds = 10

    /// `answer` when it is final; otherwise what the rounds it starts end with.
    func resolve(
        _ answer: Result<JSONValue, JSONRPCError>,
        method: String,
        params: JSONObject,
        options: RequestOptions
    ) async throws(UpstreamError) -> Result<JSONValue, JSONRPCError> {
        var answer = answer
        var round = 0
        var pause = Duration.milliseconds(50)
        while case .success(let result) = answer, result["resultType"]?.stringValue == "input_required" {
            round += 1
            guard let relay else {
                return .failure(
                    .internalError("MCP server '\(server)' asked for input, which this client cannot be asked")
                )
            }
            guard round <= Self.maxRounds else {
                return .failure(
                    .internalError("MCP server '\(server)' asked for input more than \(Self.maxRounds) times")
                )
            }
            var retry = params
            let asks = result["inputRequests"]?.objectValue ?? [:]
            if asks.isEmpty {
                try? await time.sleep(until: time.now + pause)
                pause = min(pause * 2, .milliseconds(250))
            } else {
                switch await Self.ask(asks, through: relay) {
                case .failure(let error): return .failure(error)
                case .success(let responses): retry["inputResponses"] = .object(responses)
                }
            }
            if let state = result["requestState"] { retry["requestState"] = state }
            answer = try await client.request(method, params: .object(retry), options: options)
        }
        return answer
    }

    /// Every ask sent to the client at once; the answers under the upstream's keys, or the first failure.
    static func ask(
        _ asks: JSONObject,
        through relay: SessionRelay
    ) async -> Result<JSONObject, JSONRPCError> {
        await withTaskGroup(of: (String, Result<JSONValue, JSONRPCError>).self) { group in
            for (key, ask) in asks {
                group.addTask {
                    guard let method = ask["method"]?.stringValue else {
                        return (key, .failure(.internalError("an input request without a method")))
                    }
                    var params = ask["params"]?.objectValue ?? [:]
                    if method == MCPMethod.elicitationCreate, params["mode"]?.stringValue == "url" {
                        // 2025-11-25 clients need an id for a URL elicitation; 2026-07-28 servers send none.
                        params["elicitationId"] = .string(UUID().uuidString.lowercased())
                    }
                    let request = JSONRPCRequest(id: .string(key), method: method, params: .object(params))
                    return (key, await relay.relay(request))
                }
            }
            var responses = JSONObject()
            for await (key, outcome) in group {
                switch outcome {
                case .success(let value): responses[key] = value
                case .failure(let error):
                    group.cancelAll()
                    return .failure(error)
                }
            }
            return .success(responses)
        }
    }
}
