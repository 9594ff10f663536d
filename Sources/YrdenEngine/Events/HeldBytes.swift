import YrdenProtocol
import YrdenTransport

// About how many bytes a value keeps alive, for the bounds of what the gateway holds on to after it was used
// (the ring of recent events): strings by their UTF-8, every JSON value, member and record by a small overhead.
// Whatever a peer sent counts (a server's handshake, a tool as it was listed), since that is what can be large;
// a server's spec does not, being the operator's own and bounded by the admin API's body limit.

extension JSONValue {
    var heldBytes: Int {
        switch self {
        case .string(let text): return 16 + text.utf8.count
        case .array(let items): return items.reduce(16) { $0 + $1.heldBytes }
        case .object(let object): return object.heldBytes
        case .null, .bool, .int, .double: return 16
        }
    }
}

extension JSONObject {
    var heldBytes: Int { reduce(16) { $0 + 16 + $1.key.utf8.count + $1.value.heldBytes } }
}

extension UpstreamHandshake {
    var heldBytes: Int {
        64 + protocolVersion.utf8.count + capabilities.heldBytes + serverInfo.heldBytes
            + (instructions?.utf8.count ?? 0)
    }
}

extension ServerStatus {
    var heldBytes: Int {
        // While connected the two are the same handshake, one copy.
        let handshake = (self.handshake ?? lastHandshake)?.heldBytes ?? 0
        return 256 + handshake + (lastFailure?.error.message.utf8.count ?? 0)
    }
}

extension GatewayEvent {
    var heldBytes: Int {
        switch self {
        case .serverRemoved(let id): return 256 + id.utf8.count
        case .serverAdded(let status), .serverState(let status), .serverCatalog(let status):
            return status.heldBytes
        case .toolPin(let pin): return 256 + pin.change.from.heldBytes + pin.change.to.heldBytes
        }
    }
}
