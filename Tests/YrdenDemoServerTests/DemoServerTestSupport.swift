import Synchronization
import Testing
import YrdenDemoServer
import YrdenProtocol

/// Collects what a core emits (progress notifications, deferred responses) and lets a test await it.
final class EmittedMessages: Sendable {
    private let received = Mutex<[JSONRPCMessage]>([])
    private let stream: AsyncStream<JSONRPCMessage>
    private let input: AsyncStream<JSONRPCMessage>.Continuation

    init() {
        (stream, input) = AsyncStream.makeStream(of: JSONRPCMessage.self)
    }

    func append(_ message: JSONRPCMessage) {
        received.withLock { $0.append(message) }
        input.yield(message)
    }

    var all: [JSONRPCMessage] { received.withLock { $0 } }

    /// Waits for the response with `id`, returning every message that arrived up to and including it.
    func messages(untilResponseTo id: JSONRPCID) async -> [JSONRPCMessage] {
        var seen: [JSONRPCMessage] = []
        for await message in stream {
            seen.append(message)
            if case .response(let response) = message, response.id == id { break }
        }
        return seen
    }

    /// Waits for the first notification satisfying `predicate`.
    func firstNotification(where predicate: (JSONRPCNotification) -> Bool) async -> JSONRPCNotification? {
        for await message in stream {
            if case .notification(let notification) = message, predicate(notification) { return notification }
        }
        return nil
    }
}

/// A core wired to an ``EmittedMessages`` sink.
func makeCore() -> (DemoServerCore, EmittedMessages) {
    let sink = EmittedMessages()
    return (DemoServerCore(emit: sink.append), sink)
}

extension DemoServerCore {
    /// Sends a request and returns the raw JSON of the reply (`nil` when the reply is deferred).
    func request(_ method: String, _ params: JSONValue? = nil, id: JSONRPCID = .int(1)) -> JSONValue? {
        handle(JSONRPCRequest(id: id, method: method, params: params).message)?.json
    }

    /// Sends a request that must succeed and returns its result.
    func result(_ method: String, _ params: JSONValue? = nil) throws -> JSONValue {
        let reply = try #require(request(method, params))
        #expect(reply["error"] == nil, "unexpected error \(reply.jsonText)")
        return try #require(reply["result"])
    }

    /// Sends a request that must fail and returns its error object.
    func error(_ method: String, _ params: JSONValue? = nil) throws -> JSONValue {
        let reply = try #require(request(method, params))
        #expect(reply["result"] == nil, "unexpected success \(reply.jsonText)")
        return try #require(reply["error"])
    }

    func notify(_ method: String, _ params: JSONValue? = nil) {
        #expect(handle(JSONRPCNotification(method: method, params: params).message) == nil)
    }
}

func callParams(_ name: String, _ arguments: JSONValue? = nil) -> JSONValue {
    var params: JSONObject = ["name": .string(name)]
    if let arguments { params["arguments"] = arguments }
    return .object(params)
}
