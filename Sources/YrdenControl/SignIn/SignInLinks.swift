import Synchronization
import YrdenOAuth

/// The gateway's own sign-in links of per-user sign-ins: `/oauth/sign-in/<id>`, on the listener that serves
/// `/oauth/callback`, answering 302 to the authorization URL of one user's pending sign-in.
///
/// A user is shown this link rather than the authorization server's URL, so what a client displays points at
/// the gateway. The id is 256 random bits, mapped to that user's pending sign-in and to nothing else: opening
/// it only starts the sign-in the gateway already began for that user, never a new one or anyone else's, and
/// it stops working when that sign-in is over (completed, failed, replaced, expired). One link per user's
/// session at most, the table bounded by ``maxLinks``; nothing here does I/O under the lock.
final class SignInLinks: Sendable {
    /// More links than this (one per user's pending sign-in) drop the expired ones, then the soonest to expire.
    static let maxLinks = 4096
    static let pathPrefix = "/oauth/sign-in/"

    private struct Link {
        let sessionID: String
        let authorizationURL: String
        let expiresAt: Double
        let session: OAuthSession
    }

    private struct Table {
        var byID: [String: Link] = [:]
        var idBySession: [String: String] = [:]

        mutating func remove(_ id: String) {
            guard let link = byID.removeValue(forKey: id) else { return }
            if idBySession[link.sessionID] == id { idBySession[link.sessionID] = nil }
        }
    }

    /// `http(s)://host:port/oauth/sign-in/`: the callback's origin and listener.
    let base: String
    private let table = Mutex(Table())

    /// `redirectURI` is the gateway's `/oauth/callback`; the links are served beside it.
    init(redirectURI: String) {
        let callback = "/oauth/callback"
        let root = redirectURI.hasSuffix(callback) ? String(redirectURI.dropLast(callback.count)) : redirectURI
        base = (root.hasSuffix("/") ? String(root.dropLast()) : root) + Self.pathPrefix
    }

    /// The link of `session`'s pending sign-in at `authorizationURL`: the one given before while it is still
    /// that sign-in, else a new one (the old one stops working).
    func link(for session: OAuthSession, authorizationURL: String, expiresAt: Double, now: Double) -> String {
        let id = table.withLock { table -> String in
            if let id = table.idBySession[session.serverID], let link = table.byID[id],
                link.authorizationURL == authorizationURL
            {
                return id
            }
            if let old = table.idBySession[session.serverID] { table.remove(old) }
            if table.byID.count >= Self.maxLinks {
                for (id, link) in table.byID where link.expiresAt <= now { table.remove(id) }
            }
            while table.byID.count >= Self.maxLinks,
                let soonest = table.byID.min(by: { $0.value.expiresAt < $1.value.expiresAt })
            {
                table.remove(soonest.key)
            }
            let id = SecureRandom.token()
            table.byID[id] = Link(
                sessionID: session.serverID,
                authorizationURL: authorizationURL,
                expiresAt: expiresAt,
                session: session
            )
            table.idBySession[session.serverID] = id
            return id
        }
        return base + id
    }

    /// Where link `id` sends the browser: the authorization URL, while that user's sign-in is still pending on
    /// it; `nil` for an unknown, expired or finished one (then forgotten).
    func authorizationURL(for id: String, now: Double) async -> String? {
        guard id.utf8.count == 43, id.utf8.allSatisfy(Self.isBase64URL) else { return nil }
        guard let link = table.withLock({ $0.byID[id] }) else { return nil }
        if link.expiresAt > now, case .waitingForUser(let url, _) = await link.session.progress,
            url == link.authorizationURL
        {
            return url
        }
        table.withLock { $0.remove(id) }
        return nil
    }

    /// How many links are held (for tests of the bound).
    var count: Int { table.withLock { $0.byID.count } }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
            || byte == 0x5F
    }
}
