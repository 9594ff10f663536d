import YrdenProtocol

/// One `subscriptions/listen` request as both transports serve it: the kinds asked for and honoured, the
/// acknowledgement that comes first, each change stamped with the subscription's id, and the result that
/// ends it gracefully.
struct ListenSubscription: Sendable {
    /// The filter's list-change fields, with the notification each lets through. `resourceSubscriptions`
    /// is honoured for the URIs the gateway could follow (see ``Gateway/follow(_:for:)``).
    static let kinds: [(field: String, method: String)] = [
        ("toolsListChanged", MCPMethod.toolsListChanged),
        ("promptsListChanged", MCPMethod.promptsListChanged),
        ("resourcesListChanged", MCPMethod.resourcesListChanged),
    ]

    /// The listen request's id, which is the subscription's id (its JSON type kept).
    let id: JSONRPCID
    let acknowledgement: JSONRPCMessage
    /// The listen request's result: what a graceful end (the gateway stopping) says last.
    let end: JSONRPCMessage
    private let wanted: Set<String>

    /// The URIs the listen request asks to follow.
    static func requestedResources(_ call: JSONRPCRequest) -> [String] {
        call.params?["notifications"]?["resourceSubscriptions"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The subscription `call` asks for, honouring `followed` of the resources it asked to follow.
    init(_ call: JSONRPCRequest, followed: [String] = []) {
        id = call.id
        let requested = call.params?["notifications"]?.objectValue ?? [:]
        let kinds = Self.kinds.filter { requested[$0.field]?.boolValue == true }
        wanted = Set(kinds.map(\.method) + (followed.isEmpty ? [] : [MCPMethod.resourcesUpdated]))
        var honored = JSONObject()
        for kind in kinds { honored[kind.field] = true }
        // What cannot be followed is left out of the honoured set, as the spec asks of unsupported kinds.
        if !followed.isEmpty {
            honored["resourceSubscriptions"] = .array(followed.map { .string($0) })
        }
        let stamp: JSONValue = [ModernEnvelope.subscriptionIDKey: call.id.json]
        acknowledgement = .notification(
            JSONRPCNotification(
                method: MCPMethod.subscriptionsAcknowledged,
                params: ["notifications": .object(honored), "_meta": stamp]
            )
        )
        end = .response(JSONRPCResponse(id: call.id, result: ["resultType": "complete", "_meta": stamp]))
    }

    /// A change the gateway announced, as this subscription sends it: stamped with its id; `nil` for a kind
    /// it did not ask for.
    func frame(_ message: JSONRPCMessage) -> JSONRPCMessage? {
        guard case .notification(let change) = message, wanted.contains(change.method) else { return nil }
        var params = change.params?.objectValue ?? [:]
        var meta = params["_meta"]?.objectValue ?? [:]
        meta[ModernEnvelope.subscriptionIDKey] = id.json
        params["_meta"] = .object(meta)
        return .notification(JSONRPCNotification(method: change.method, params: .object(params)))
    }
}
