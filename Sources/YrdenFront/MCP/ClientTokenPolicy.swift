import YrdenEngine

/// Who may use the MCP endpoint when `gateway.clientTokens` is set: a request must carry
/// `Authorization: Bearer` with one of them. With none configured the endpoint is open, as a loopback
/// listener on a developer's machine usually is. The admin token is accepted too (its holder can add any
/// server anyway), so the web console can use the endpoint it manages.
package struct ClientTokenPolicy: Sendable {
    /// Each accepted token's bytes and the caller it proves (named once here, not per request).
    let tokens: [(bytes: [UInt8], caller: Caller)]

    package init(tokens: [String]) {
        self.tokens = tokens.map { (Array($0.utf8), Caller.clientToken($0)) }
    }

    /// `clientTokens` and the admin token beside them; the admin token alone when `guarded` (the endpoint asks
    /// for a token anyway: an access token of `gateway.auth`).
    package init(clientTokens: [String], adminToken: String?, guarded: Bool = false) {
        var tokens = clientTokens.map { (bytes: Array($0.utf8), caller: Caller.clientToken($0)) }
        if !tokens.isEmpty || guarded, let adminToken {
            tokens.append((Array(adminToken.utf8), Caller.admin(token: adminToken)))
        }
        self.tokens = tokens
    }

    /// Whether any token is asked for at all.
    package var isOpen: Bool { tokens.isEmpty }

    /// True when no token is required, or the header carries one of them (compared in constant time).
    package func permits(_ authorization: String?) -> Bool { caller(for: authorization) != nil }

    /// Who `authorization` proves the caller is: ``Caller/anonymous`` when no token is required, the holder of
    /// the token it carries, or `nil` when it carries none of them. Every token is compared (in constant time),
    /// so the time taken says nothing of which one matched.
    package func caller(for authorization: String?) -> Caller? {
        guard !tokens.isEmpty else { return .anonymous }
        guard let authorization, let presented = AdminAccess.bearerToken(in: authorization) else { return nil }
        return caller(presenting: presented)
    }

    /// The holder of `presented`, a bearer token already taken out of its header; `nil` when it is none of them.
    /// Read in place: with `gateway.auth` an access token of a kilobyte comes here first on every request, and
    /// copying it into an array cost more than the comparisons.
    package func caller(presenting presented: Substring) -> Caller? {
        presented.utf8.withContiguousStorageIfAvailable(holder(of:))
            ?? Array(presented.utf8).withUnsafeBufferPointer(holder(of:))
    }

    private func holder(of presented: UnsafeBufferPointer<UInt8>) -> Caller? {
        var matched: Caller?
        for token in tokens where Self.sameBytes(presented, token.bytes) { matched = token.caller }
        return matched
    }

    /// Constant time in the contents: every byte of the configured token is compared, whatever the presented one
    /// holds, so a long presented token (an access token) costs no more than a short one.
    static func sameBytes(_ presented: UnsafeBufferPointer<UInt8>, _ expected: [UInt8]) -> Bool {
        var difference: UInt8 = presented.count == expected.count ? 0 : 1
        for index in expected.indices {
            difference |= expected[index] ^ (index < presented.count ? presented[index] : 0)
        }
        return difference == 0
    }
}
