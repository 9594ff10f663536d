/// Turns at refreshing one server's tokens, taken one replica at a time across every gateway that shares them.
///
/// Authorization servers rotate refresh tokens, and many revoke every token of a sign-in when a used one comes
/// back: two replicas refreshing at once would sign all of them out. With a shared store the gateway gives
/// each session one of these (a lock in the database); without one there is none, and the session's own
/// single flight is enough.
package protocol OAuthRefreshLock: Sendable {
    /// Runs `body` while no other replica runs one for `lock`, with the secret `name` as the store holds it
    /// now (read afresh, not from a cache; nil when there is none). What `body` returns to store (`nil`:
    /// nothing) is in the store before the turn ends, so the next turn reads it.
    func withTurn<Result: Sendable>(
        _ lock: String,
        reading name: String,
        _ body: @escaping @Sendable (_ stored: [UInt8]?) async throws -> (result: Result, store: [UInt8]?)
    ) async throws -> Result
}

/// What a refresh does once it has its turn, from the tokens it set out to refresh and those stored now.
enum RefreshTurn: Sendable, Equatable {
    /// Another replica refreshed (or signed in) first: use what it stored and ask the server nothing; the
    /// refresh token it was going to send is spent already.
    case adopt(OAuthTokens)
    /// Ask the server for new tokens with these tokens' refresh token.
    case grant(OAuthTokens)
    /// The tokens were removed meanwhile (signed out, or found dead by another replica): a sign-in is needed.
    case signedOut

    static func decide(refreshing current: OAuthTokens, stored: OAuthTokens?, at now: Double) -> RefreshTurn {
        guard let stored else { return .signedOut }
        guard stored != current else { return .grant(current) }
        // Newer tokens that need no refresh yet (or cannot have one) are used as they are.
        if stored.refreshToken == nil || !stored.refreshDue(at: now) { return .adopt(stored) }
        return .grant(stored)
    }
}
