import YrdenConfig
import YrdenEngine

/// Why an operator's config change was refused, or what it could not finish in time; the admin API maps each
/// case to its HTTP status.
package enum ConfigStoreError: Error, Sendable, CustomStringConvertible {
    case invalid(ConfigError)
    case unknownServer(String)
    case duplicateServer(String)
    case conflict(String)
    case storage(String)
    /// The store replicas share the config through cannot be reached; nothing changed.
    case storeUnavailable(String)
    /// The request named a version (`If-Match`) that is not the current one; nothing changed.
    case versionMismatch(current: String)
    /// Too many changes are queued, or this one waited too long for its turn; nothing changed.
    case busy(String)
    /// The change is saved and applied, but these servers had not stopped within the limit; they finish
    /// stopping in the background.
    case stillStopping(LateStop)

    package var description: String {
        switch self {
        case .invalid(let error): "\(error)"
        case .unknownServer(let id): "no server \(id)"
        case .duplicateServer(let id): "a server \(id) already exists"
        case .conflict(let message), .storage(let message), .busy(let message), .storeUnavailable(let message):
            message
        case .versionMismatch(let current): "the config changed meanwhile; its current version is \(current)"
        case .stillStopping(let late): late.description
        }
    }

    init(_ error: ControlError) {
        switch error {
        case .unknownServer(let id): self = .unknownServer(id)
        case .duplicateServer(let id): self = .duplicateServer(id)
        case .conflict(let message): self = .conflict(message)
        }
    }
}

/// Servers an applied change waited for in vain: what they are, how long it waited, and what follows.
package struct LateStop: Sendable, Hashable, CustomStringConvertible {
    package var servers: [String]
    package var limit: Duration
    /// The servers start again (with their new entry) once they have stopped.
    package var restarting: Bool

    package init(servers: [String], limit: Duration, restarting: Bool) {
        self.servers = servers
        self.limit = limit
        self.restarting = restarting
    }

    package var description: String {
        let names = servers.map { "'\($0)'" }.joined(separator: ", ")
        let one = servers.count == 1
        let within = "did not stop within \(Self.words(for: limit))"
        let subject = one ? "server \(names) \(within); it is" : "servers \(names) \(within); they are"
        let next = restarting ? (one ? " and starts again once it has" : " and start again once they have") : ""
        return "\(subject) being stopped in the background\(next). The change is saved and applied."
    }

    /// `10 s`, or `250 ms` below a second.
    static func words(for duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return seconds > 0 ? "\(seconds) s" : "\(attoseconds / 1_000_000_000_000_000) ms"
    }
}
