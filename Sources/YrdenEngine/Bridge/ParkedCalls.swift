import Synchronization
import YrdenProtocol
import YrdenTransport

/// The parked calls, each until its client retries or its token expires: at most ``limit`` at once, at most
/// ``perClientLimit`` of one client and ``perServerLimit`` on one server, so that one client that never
/// retries cannot take every place from the others.
final class ParkedCalls: Sendable {
    private struct Entry {
        var call: ParkedCall
        var expiry: Task<Void, Never>
    }

    private struct Table {
        var entries: [String: Entry] = [:]
        var perClient: [ClientKey: Int] = [:]
        var perServer: [String: Int] = [:]

        /// Why `call` cannot be parked; `nil` when it can.
        func refusal(of call: ParkedCall) -> JSONRPCError? {
            if entries.count >= ParkedCalls.limit {
                return .internalError("the gateway has \(ParkedCalls.limit) calls waiting for input already")
            }
            if let client = call.client, perClient[client, default: 0] >= ParkedCalls.perClientLimit {
                return .internalError(
                    "this client has \(ParkedCalls.perClientLimit) calls waiting for input already; "
                        + "retry them with their answers, or let them expire"
                )
            }
            if perServer[call.server, default: 0] >= ParkedCalls.perServerLimit {
                return .internalError(
                    "MCP server '\(call.server)' has \(ParkedCalls.perServerLimit) calls waiting for input already"
                )
            }
            return nil
        }

        mutating func insert(_ entry: Entry, as id: String) {
            entries[id] = entry
            if let client = entry.call.client { perClient[client, default: 0] += 1 }
            perServer[entry.call.server, default: 0] += 1
        }

        mutating func remove(_ id: String) -> Entry? {
            guard let entry = entries.removeValue(forKey: id) else { return nil }
            if let client = entry.call.client {
                perClient[client, default: 1] -= 1
                if perClient[client] == 0 { perClient[client] = nil }
            }
            perServer[entry.call.server, default: 1] -= 1
            if perServer[entry.call.server] == 0 { perServer[entry.call.server] = nil }
            return entry
        }
    }

    private let table = Mutex(Table())
    private let next = Atomic<Int>(1)
    static let limit = 256
    static let perClientLimit = 16
    static let perServerLimit = 64

    /// Parks `call` for `lifetime`, when it is cancelled unless taken first; its id, or why it cannot wait
    /// (the caller ends the call).
    func park(_ call: ParkedCall, for lifetime: Duration) -> Result<String, JSONRPCError> {
        let id = "p\(next.wrappingAdd(1, ordering: .relaxed).oldValue)-\(UInt64.random(in: 0...UInt64.max))"
        // Bounded by the table's limit, and ends at the token's expiry or when the retry takes the call.
        let expiry = Task {
            guard (try? await call.time.sleep(until: call.time.now + lifetime)) != nil else { return }
            self.take(id)?.cancel("the client did not retry before the requestState expired")
        }
        let refusal = table.withLock { table -> JSONRPCError? in
            if let refusal = table.refusal(of: call) { return refusal }
            table.insert(Entry(call: call, expiry: expiry), as: id)
            return nil
        }
        if let refusal {
            expiry.cancel()
            return .failure(refusal)
        }
        return .success(id)
    }

    /// The call parked under `id`, left parked.
    func peek(_ id: String) -> ParkedCall? {
        table.withLock { $0.entries[id]?.call }
    }

    /// Takes the call out (a token resumes its call once).
    func take(_ id: String) -> ParkedCall? {
        guard let entry = table.withLock({ $0.remove(id) }) else { return nil }
        entry.expiry.cancel()
        return entry.call
    }

    var count: Int { table.withLock { $0.entries.count } }

    /// Cancels every parked call (the gateway stops).
    func cancelAll() {
        let all = table.withLock { table in
            defer { table = Table() }
            return Array(table.entries.values)
        }
        for entry in all {
            entry.expiry.cancel()
            entry.call.cancel("the gateway is stopping")
        }
    }
}
