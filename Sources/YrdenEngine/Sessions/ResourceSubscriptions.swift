import Synchronization
import YrdenProtocol

/// Which clients follow which resources, counted per server and URI, so that each upstream is subscribed to
/// a URI once, however many clients follow it, and unsubscribed when the last one stops or leaves.
///
/// Keyed by session; a session that ended is dropped the next time the table is used (``prune()``), and its
/// URIs are released like an unsubscribe.
final class ResourceSubscriptions: Sendable {
    /// A resource of one server.
    struct Key: Hashable, Sendable {
        var server: String
        var uri: String
    }

    private struct State {
        var followers: [Key: Set<ObjectIdentifier>] = [:]
        var sessions: [ObjectIdentifier: (session: DownstreamSession, keys: Set<Key>)] = [:]
    }

    private let state = Mutex(State())
    /// URIs one session may follow.
    static let perSession = 256

    /// Adds `session` as a follower of `key`; whether it is the first (the upstream must be told), or
    /// `nil` when the session follows its limit already.
    func subscribe(_ session: DownstreamSession, to key: Key) -> Bool? {
        state.withLock { state in
            let id = ObjectIdentifier(session)
            var entry = state.sessions[id] ?? (session, [])
            guard entry.keys.contains(key) || entry.keys.count < Self.perSession else { return nil }
            entry.keys.insert(key)
            state.sessions[id] = entry
            let first = state.followers[key, default: []].isEmpty
            state.followers[key, default: []].insert(id)
            return first
        }
    }

    /// Removes `session` as a follower of `uri`; the key it was the last follower of, if any.
    func unsubscribe(_ session: DownstreamSession, from uri: String) -> Key? {
        state.withLock { state in
            let id = ObjectIdentifier(session)
            guard var entry = state.sessions[id], let key = entry.keys.first(where: { $0.uri == uri }) else {
                return nil
            }
            entry.keys.remove(key)
            state.sessions[id] = entry.keys.isEmpty ? nil : entry
            return Self.release(key, by: id, in: &state) ? key : nil
        }
    }

    /// Drops sessions that ended; the keys they were the last followers of.
    func prune() -> [Key] {
        state.withLock { state in
            var released: [Key] = []
            for (id, entry) in state.sessions where entry.session.isEnded {
                state.sessions[id] = nil
                for key in entry.keys where Self.release(key, by: id, in: &state) { released.append(key) }
            }
            return released
        }
    }

    /// The sessions to tell that `uri` of `server` changed: those following it, or a resource it is part of
    /// (2026-07-28 lets an update name a sub-resource of the one subscribed).
    func followers(of uri: String, on server: String) -> [DownstreamSession] {
        state.withLock { state in
            var ids = Set<ObjectIdentifier>()
            for (key, followers) in state.followers where key.server == server && Self.covers(key.uri, uri) {
                ids.formUnion(followers)
            }
            return ids.compactMap { state.sessions[$0]?.session }
        }
    }

    /// The URIs of `server` that someone follows: what a reconnected upstream is subscribed to again.
    func uris(on server: String) -> [String] {
        state.withLock { state in state.followers.keys.filter { $0.server == server }.map(\.uri).sorted() }
    }

    private static func covers(_ subscribed: String, _ updated: String) -> Bool {
        guard updated.hasPrefix(subscribed) else { return false }
        if updated.count == subscribed.count || subscribed.hasSuffix("/") { return true }
        let next = updated[updated.index(updated.startIndex, offsetBy: subscribed.count)]
        return next == "/" || next == "#" || next == "?"
    }

    /// Whether `id` was the last follower of `key`.
    private static func release(_ key: Key, by id: ObjectIdentifier, in state: inout State) -> Bool {
        state.followers[key]?.remove(id)
        guard state.followers[key]?.isEmpty == true else { return false }
        state.followers[key] = nil
        return true
    }
}
