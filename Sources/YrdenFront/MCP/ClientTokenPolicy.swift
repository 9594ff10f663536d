/// Who may use the MCP endpoint when `gateway.clientTokens` is set: a request must carry
/// `Authorization: Bearer` with one of them. With none configured the endpoint is open, as a loopback
/// listener on a developer's machine usually is. The admin token is accepted too (its holder can add any
/// server anyway), so the web console can use the endpoint it manages.
package struct ClientTokenPolicy: Sendable {
    let tokens: [[UInt8]]

    package init(tokens: [String]) {
        self.tokens = tokens.map { Array($0.utf8) }
    }

    package init(clientTokens: [String], adminToken: String?) {
        self.init(tokens: clientTokens.isEmpty ? [] : clientTokens + [adminToken].compactMap { $0 })
    }

    /// True when no token is required, or the header carries one of them (compared in constant time).
    package func permits(_ authorization: String?) -> Bool {
        guard !tokens.isEmpty else { return true }
        guard let authorization, let presented = AdminAccess.bearerToken(in: authorization) else { return false }
        let bytes = Array(presented.utf8)
        var matched = false
        for token in tokens where AdminAccess.constantTimeEquals(bytes, token) { matched = true }
        return matched
    }
}
