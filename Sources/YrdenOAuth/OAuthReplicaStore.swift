/// What a session needs of the store it shares with other replicas, beyond its secrets (which it reads and
/// writes through this replica's copy, a `SecretStore`): turns at refreshing, and reads and writes that must
/// not wait for a copy to catch up. Without a shared store there is none.
///
/// Turns: authorization servers rotate refresh tokens, and many revoke every token of a sign-in when a used
/// one comes back, so two replicas refreshing at once would sign all of them out; a turn is a lock in the
/// database, and the session's own single flight covers the rest.
package protocol OAuthReplicaStore: Sendable {
    /// Runs `body` while no other replica runs one for `lock`, with the secret `name` as the store holds it
    /// now (read afresh, not from a cache; nil when there is none). What `body` returns to store (`nil`:
    /// nothing) is in the store before the turn ends, so the next turn reads it.
    func withTurn<Result: Sendable>(
        _ lock: String,
        reading name: String,
        _ body: @escaping @Sendable (_ stored: [UInt8]?) async throws -> (result: Result, store: [UInt8]?)
    ) async throws -> Result

    /// The secret `name` as the store itself holds it now (another replica's write may not have reached this
    /// replica's copy yet); nil when there is none.
    func read(_ name: String) async throws -> [UInt8]?

    /// Writes the secret `name` to the store itself; in it when this returns, not queued.
    func write(_ name: String, _ bytes: [UInt8]) async throws
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
