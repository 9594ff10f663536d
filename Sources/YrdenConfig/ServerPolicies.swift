/// Which upstream tools a server exposes through the gateway.
///
/// `allow` narrows to a list (`nil` means every tool); `deny` removes from whatever is left. Names are the
/// upstream's own (bare) tool names, so a filter keeps working when the prefix changes.
package struct ToolFilter: Sendable, Hashable {
    package var allow: [String]?
    package var deny: [String]

    package init(allow: [String]? = nil, deny: [String] = []) {
        self.allow = allow
        self.deny = deny
    }

    /// Whether `name` passes: matched by an `allow` entry (when there are any) and by no `deny` entry. An entry
    /// with `*` is a pattern (`*` stands for any run of characters); without one it is the name itself.
    package func permits(_ name: String) -> Bool {
        if let allow, !allow.contains(where: { Self.matches($0, name) }) { return false }
        return !deny.contains { Self.matches($0, name) }
    }

    static func matches(_ pattern: String, _ name: String) -> Bool {
        guard pattern.contains("*") else { return pattern == name }
        return matches(pattern.split(separator: "*", omittingEmptySubsequences: false), name)
    }

    /// Whether `name` matches the pattern whose runs between `*`s are `parts` (``ToolFilterMatcher`` splits
    /// each pattern once).
    static func matches(_ parts: [Substring], _ name: String) -> Bool {
        var rest = Substring(name)
        guard let first = parts.first, rest.hasPrefix(first) else { return false }
        rest = rest.dropFirst(first.count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let found = rest.firstRange(of: part) else { return false }
            rest = rest[found.upperBound...]
        }
        guard let last = parts.last, parts.count > 1 else { return rest.isEmpty }
        return rest.hasSuffix(last)
    }
}

/// How long the gateway waits on one upstream before giving up.
package struct Timeouts: Sendable, Hashable {
    /// Starting the process or opening the connection, through the MCP handshake.
    package var connect: Duration
    /// Any request other than a tool call (lists, reads, prompts, pings).
    package var request: Duration
    /// A tool call, which may legitimately run for minutes.
    package var toolCall: Duration
    /// The `server/discover` probe that tells a 2026-07-28 server from an older one: an older stdio server
    /// may never answer it, and after this long the gateway falls back to `initialize`.
    package var discover: Duration

    package static let defaultConnect = Duration.seconds(10)
    package static let defaultRequest = Duration.seconds(60)
    package static let defaultToolCall = Duration.seconds(300)
    package static let defaultDiscover = Duration.seconds(5)

    package init(
        connect: Duration = defaultConnect,
        request: Duration = defaultRequest,
        toolCall: Duration = defaultToolCall,
        discover: Duration = defaultDiscover
    ) {
        self.connect = connect
        self.request = request
        self.toolCall = toolCall
        self.discover = discover
    }

    static let keys = ["connect", "request", "toolCall", "discover"]
}

/// What happens when an upstream connection drops or fails to come up.
package enum ReconnectPolicy: Sendable, Hashable {
    /// Stay failed until an operator reconnects it.
    case never
    /// Exponential backoff (with jitter) from `initialDelay` up to `maxDelay`; `maxAttempts == nil` is unlimited.
    case backoff(initialDelay: Duration, maxDelay: Duration, maxAttempts: Int?)

    /// 1 s doubling to 60 s, forever: a server that comes back is picked up without an operator.
    package static let `default` = ReconnectPolicy.backoff(
        initialDelay: .seconds(1),
        maxDelay: .seconds(60),
        maxAttempts: nil
    )

    static let keys = ["initialDelay", "maxDelay", "maxAttempts"]

    /// The most attempts a policy may count; beyond it "unlimited" (leaving the key out) says it better.
    package static let maxAttemptsLimit = 1_000_000
}

/// Which MCP era the gateway speaks to a server: found out at each connection (`auto`), or pinned.
package enum UpstreamProtocol: String, Sendable, Hashable, CaseIterable {
    /// Probe with `server/discover`, fall back to the `initialize` handshake.
    case auto
    /// 2026-07-28 only: every request carries its envelope; no handshake is tried.
    case modern = "2026-07-28"
    /// The `initialize` handshake only (2025-11-25 and before); no probe.
    case handshake = "2025-11-25"
}
