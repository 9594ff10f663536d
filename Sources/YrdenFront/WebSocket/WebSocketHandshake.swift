import Crypto
import YrdenHTTPServer
import YrdenProtocol

/// What a WebSocket opening handshake (RFC 6455 §4.2) asks, and the gateway's answer to it: the `101` head
/// (its `Sec-WebSocket-Accept`, the `mcp` subprotocol when offered) or why it is refused. Pure.
struct WebSocketHandshake: Equatable {
    /// The key the client sent, proof that it speaks WebSocket, answered digested.
    let key: String
    /// `mcp` when the client offered it; `nil` when it offered no subprotocol.
    let subprotocol: String?

    /// RFC 6455's fixed GUID, appended to the key before it is digested.
    static let keySuffix = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    static let subprotocol = "mcp"

    /// Why a request is no WebSocket handshake this endpoint takes: the status and the header to answer with.
    struct Refusal: Error, Equatable {
        let status: Int
        let reason: String
        /// `Upgrade: websocket` and `Sec-WebSocket-Version: 13` for a 426.
        var headers: [(String, String)] = []

        static func == (lhs: Refusal, rhs: Refusal) -> Bool {
            lhs.status == rhs.status && lhs.reason == rhs.reason
        }
    }

    /// The handshake `request` asks for, or why it is refused.
    static func read(_ request: HTTPRequest) -> Result<WebSocketHandshake, Refusal> {
        guard request.method == "GET" else {
            return .failure(Refusal(status: 405, reason: "a WebSocket opens with GET", headers: [("Allow", "GET")]))
        }
        let upgrade = tokens(request.headers["Upgrade"])
        let version = request.headers["Sec-WebSocket-Version"].map { Substring($0).trimmingWhitespace() }
        guard upgrade.contains("websocket"), version == "13" else {
            return .failure(
                Refusal(
                    status: 426,
                    reason: "this endpoint is a WebSocket: send Upgrade: websocket and Sec-WebSocket-Version: 13",
                    headers: [("Upgrade", "websocket"), ("Sec-WebSocket-Version", "13")]
                )
            )
        }
        guard tokens(request.headers["Connection"]).contains("upgrade") else {
            return .failure(Refusal(status: 400, reason: "a WebSocket upgrade needs Connection: Upgrade"))
        }
        guard let key = request.headers["Sec-WebSocket-Key"].map({ Substring($0).trimmingWhitespace() }),
            Base64.decode(key)?.count == 16
        else {
            return .failure(Refusal(status: 400, reason: "Sec-WebSocket-Key must be 16 bytes in base64"))
        }
        let offered = request.headers.values(for: "Sec-WebSocket-Protocol").flatMap { tokens($0) }
        guard offered.isEmpty || offered.contains(Self.subprotocol) else {
            return .failure(
                Refusal(
                    status: 400,
                    reason: "this endpoint speaks the WebSocket subprotocol mcp, which was not offered"
                )
            )
        }
        return .success(WebSocketHandshake(key: key, subprotocol: offered.isEmpty ? nil : Self.subprotocol))
    }

    /// `Sec-WebSocket-Accept`: the key and the GUID, SHA-1, in base64.
    static func accept(_ key: String) -> String {
        Base64.encode(Array(Insecure.SHA1.hash(data: Array((key + keySuffix).utf8))), urlSafe: false)
    }

    /// The head of the `101` answer.
    var headers: HTTPHeaders {
        var headers: HTTPHeaders = [("Upgrade", "websocket"), ("Sec-WebSocket-Accept", Self.accept(key))]
        if let subprotocol { headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol) }
        return headers
    }

    /// A header's comma-separated tokens, lowercased.
    private static func tokens(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(separator: ",").map { $0.trimmingWhitespace().lowercased() }.filter { !$0.isEmpty }
    }
}
