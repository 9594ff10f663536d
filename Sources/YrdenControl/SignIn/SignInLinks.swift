import Synchronization
import YrdenOAuth
import YrdenProtocol
import YrdenStorage

/// The gateway's own sign-in links of per-user sign-ins: `/oauth/sign-in/<id>`, on the listener that serves
/// `/oauth/callback`, answering 302 to the authorization URL of one user's pending sign-in.
///
/// A user is shown this link rather than the authorization server's URL, so what a client displays points at
/// the gateway. The id is 256 random bits, mapped to that user's pending sign-in and to nothing else: opening
/// it only starts the sign-in the gateway already began for that user, never a new one or anyone else's, and
/// it stops working when that sign-in is over (completed, failed, replaced, expired). One link per user's
/// session at most, the table bounded by ``maxLinks``; nothing here does I/O under the lock.
///
/// With replicas sharing a store, each link is also kept there (``Shared``), beside the pending sign-in it
/// opens, so the link works through a balancer like the callback: another replica answers 302 while that
/// sign-in is still pending in the store (the callback takes it out), 404 after.
final class SignInLinks: Sendable {
    /// The store replicas share: its mirrored secrets, and the store itself for what the mirror has not yet.
    struct Shared: Sendable {
        let secrets: any SecretStore
        let store: any OAuthReplicaStore
    }

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
    let shared: Shared?
    private let table = Mutex(Table())

    /// `redirectURI` is the gateway's `/oauth/callback`; the links are served beside it.
    init(redirectURI: String, shared: Shared? = nil) {
        let callback = "/oauth/callback"
        let root = redirectURI.hasSuffix(callback) ? String(redirectURI.dropLast(callback.count)) : redirectURI
        base = (root.hasSuffix("/") ? String(root.dropLast()) : root) + Self.pathPrefix
        self.shared = shared
    }

    /// The link of `session`'s pending sign-in at `authorizationURL`: the one given before while it is still
    /// that sign-in, else a new one (the old one stops working).
    func link(for session: OAuthSession, authorizationURL: String, expiresAt: Double, now: Double) -> String {
        let (id, made, dropped) = table.withLock { table -> (String, Bool, [String]) in
            if let id = table.idBySession[session.serverID], let link = table.byID[id],
                link.authorizationURL == authorizationURL
            {
                return (id, false, [])
            }
            var dropped: [String] = []
            if let old = table.idBySession[session.serverID] {
                table.remove(old)
                dropped.append(old)
            }
            if table.byID.count >= Self.maxLinks {
                for (id, link) in table.byID where link.expiresAt <= now {
                    table.remove(id)
                    dropped.append(id)
                }
            }
            while table.byID.count >= Self.maxLinks,
                let soonest = table.byID.min(by: { $0.value.expiresAt < $1.value.expiresAt })
            {
                table.remove(soonest.key)
                dropped.append(soonest.key)
            }
            let id = SecureRandom.token()
            table.byID[id] = Link(
                sessionID: session.serverID,
                authorizationURL: authorizationURL,
                expiresAt: expiresAt,
                session: session
            )
            table.idBySession[session.serverID] = id
            return (id, true, dropped)
        }
        if let shared {
            // The shared store's secrets keep a write in their mirror and queue it: no I/O here.
            for old in dropped { try? shared.secrets.remove(Self.sharedName(old)) }
            if made, let state = Self.state(of: authorizationURL) {
                let record: JSONValue = [
                    "authorizationURL": .string(authorizationURL), "state": .string(state),
                    "expiresAt": .double(expiresAt),
                ]
                try? shared.secrets.save(Self.sharedName(id), record.serialized())
            }
        }
        return base + id
    }

    /// Where link `id` sends the browser: the authorization URL, while that user's sign-in is still pending on
    /// it; `nil` for an unknown, expired or finished one (then forgotten).
    func authorizationURL(for id: String, now: Double) async -> String? {
        guard id.utf8.count == 43, id.utf8.allSatisfy(Self.isBase64URL) else { return nil }
        guard let link = table.withLock({ $0.byID[id] }) else { return await sharedAuthorizationURL(for: id, now: now) }
        if link.expiresAt > now, case .waitingForUser(let url, _) = await link.session.progress,
            url == link.authorizationURL
        {
            return url
        }
        table.withLock { $0.remove(id) }
        try? shared?.secrets.remove(Self.sharedName(id))
        return nil
    }

    /// A link another replica gave: its authorization URL while the sign-in it opens is pending in the store.
    private func sharedAuthorizationURL(for id: String, now: Double) async -> String? {
        guard let shared else { return nil }
        let name = Self.sharedName(id)
        guard let record = await Self.read(name, in: shared).flatMap({ try? JSONValue.parse($0) }),
            let url = record["authorizationURL"]?.stringValue, let state = record["state"]?.stringValue,
            let expiresAt = record["expiresAt"]?.doubleValue
        else { return nil }
        if expiresAt > now, await Self.read(SharedSignIns.name(forState: state), in: shared) != nil { return url }
        try? shared.secrets.remove(name)
        return nil
    }

    /// This replica's copy, else the store itself: the browser can be quicker than the copy.
    private static func read(_ name: String, in shared: Shared) async -> [UInt8]? {
        if let bytes = (try? shared.secrets.load(name)) ?? nil { return bytes }
        return (try? await shared.store.read(name)) ?? nil
    }

    /// The store's name of link `id`: beside the pending sign-ins, swept with them when expired.
    static func sharedName(_ id: String) -> String { SharedSignIns.name(forLink: id) }

    /// The `state` query parameter of an authorization URL.
    static func state(of url: String) -> String? {
        guard let query = url.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") where pair.hasPrefix("state=") {
            return String(pair.dropFirst("state=".count))
        }
        return nil
    }

    /// How many links are held (for tests of the bound).
    var count: Int { table.withLock { $0.byID.count } }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
            || byte == 0x5F
    }
}
