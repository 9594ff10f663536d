import Crypto

/// Every pinned tool definition, per server and upstream tool name, and what happens to it when the server
/// lists its tools or an operator approves: the state machine of pinning, free of I/O and of the clock.
///
/// A tool never seen is pinned as listed. Listed again the same, nothing happens. Listed different, it is
/// changed: the pinned definition is kept and the new one is pending (a later, different one replaces it).
/// Approving makes the pending definition the pinned one. Listed again as pinned, it is no longer changed.
///
/// Bounded by what servers list: per server, the tools it lists now plus at most ``maxUnlisted`` it listed
/// before (the oldest forgotten first). Those are kept so that a tool a server drops and brings back changed
/// is still caught, rather than pinned afresh. The pins of a server removed from the config are dropped by
/// ``keepOnly(_:)``: removing a server is an operator's decision, not the server's.
///
/// Bounded in bytes too, so that no server can make the pin file too large to write or to read at the next
/// start: a definition larger than ``maxDefinitionBytes`` in canonical JSON, or one that would take the
/// definitions held past ``maxBookBytes``, is refused (not pinned, the pin kept as it was) and reported in
/// ``Observation/refused``; the gateway withholds such a tool under `enforce` and flags it under `warn`.
package struct PinBook: Sendable, Hashable {
    package struct Pin: Sendable, Hashable {
        /// When it was pinned (first seen or approved), seconds since 1970.
        package var pinnedAt: Double
        /// When the server stopped listing the tool; `nil` while it lists it.
        package var unlistedAt: Double?
        /// ``pending`` and ``changedAt``, boxed: a pin is held for every tool of every server and seldom has
        /// them, so they cost each pin a pointer rather than 70 bytes (10,000 pins: 1.5 MB less).
        private var change: Change?

        private final class Change: Sendable {
            let pending: ToolDefinition?
            let changedAt: Double?
            /// What differs between the pinned and the pending definition, found once when the change is
            /// made: the marks of a server with 2,000 changed tools are rebuilt at every listing and approval,
            /// and diffing 2,000 definitions each time made that quadratic; and an approval, made on the event
            /// loop, must not read a definition kept in the pin file to word its event.
            let diff: ToolDefinitionDiff?

            init(pending: ToolDefinition?, changedAt: Double?, diff: ToolDefinitionDiff?) {
                self.pending = pending
                self.changedAt = changedAt
                self.diff = diff
            }
        }

        package init(
            pinned: ToolDefinition,
            pinnedAt: Double,
            pending: ToolDefinition? = nil,
            changedAt: Double? = nil,
            unlistedAt: Double? = nil
        ) {
            self.pinned = pinned
            self.pinnedAt = pinnedAt
            self.unlistedAt = unlistedAt
            self.change = Self.change(pinned: pinned, pending: pending, changedAt: changedAt)
        }

        /// The definition approved, or first seen; replacing it finds the changed fields again.
        package var pinned: ToolDefinition {
            didSet {
                if oldValue != pinned { change = Self.change(pinned: pinned, pending: pending, changedAt: changedAt) }
            }
        }

        /// The differing definition the server lists now, waiting for approval.
        package var pending: ToolDefinition? {
            get { change?.pending }
            set { change = Self.change(pinned: pinned, pending: newValue, changedAt: changedAt) }
        }

        /// When ``pending`` was first listed.
        package var changedAt: Double? {
            get { change?.changedAt }
            set {
                change = Change(pending: pending, changedAt: newValue, diff: change?.diff)
                if pending == nil && newValue == nil { change = nil }
            }
        }

        package var isChanged: Bool { pending != nil }

        /// The fields in which ``pending`` differs from ``pinned``; empty while nothing is pending.
        package var changedFields: [String] { change?.diff?.fields ?? [] }

        /// What differs between ``pinned`` and ``pending``; `nil` while nothing is pending.
        package var diff: ToolDefinitionDiff? { change?.diff }

        /// Makes `tool` the pending definition, first listed at `now`, with `diff` from the pinned one, found
        /// by the caller (which may have read the pinned definition from the store to find it).
        mutating func setPending(_ tool: ToolDefinition, at now: Double, diff: ToolDefinitionDiff) {
            change = Change(pending: tool, changedAt: now, diff: diff)
        }

        package static func == (lhs: Pin, rhs: Pin) -> Bool {
            lhs.pinned == rhs.pinned && lhs.pinnedAt == rhs.pinnedAt && lhs.unlistedAt == rhs.unlistedAt
                && lhs.pending == rhs.pending && lhs.changedAt == rhs.changedAt
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(pinned)
            hasher.combine(pinnedAt)
            hasher.combine(unlistedAt)
            hasher.combine(pending)
            hasher.combine(changedAt)
        }

        private static func change(pinned: ToolDefinition, pending: ToolDefinition?, changedAt: Double?) -> Change? {
            guard pending != nil || changedAt != nil else { return nil }
            let diff = pending.map { ToolDefinitionDiff(from: pinned, to: $0) }
            return Change(pending: pending, changedAt: changedAt, diff: diff)
        }
    }

    /// What one listing did to the book.
    package struct Observation: Sendable, Hashable {
        /// Tools changed, changed again or changed back, in listing order.
        package var changes: [PinChange] = []
        /// How many tools were pinned at first sight.
        package var newPins = 0
        /// Whether the book differs (and should be saved).
        package var modified = false
        /// Tools whose definition was not pinned, being too large, with its canonical size.
        package var refused: [RefusedDefinition] = []
    }

    /// A definition refused for its size.
    package struct RefusedDefinition: Sendable, Hashable {
        package var tool: String
        package var bytes: Int
        /// `true` when it was refused for taking the book past ``maxBookBytes``, not for its own size.
        package var bookFull: Bool
    }

    /// The largest definition pinned, in canonical JSON: real tools are kilobytes; a schema of a few hundred
    /// kilobytes is already extreme.
    package static let maxDefinitionBytes = 1024 * 1024
    /// The most the definitions held (pinned and pending) may take together, in canonical JSON; the file,
    /// indented, stays below its own bound (64 MiB, ``FileToolPinStore``) with room to spare.
    package static let maxBookBytes = 32 * 1024 * 1024

    /// The canonical bytes of every definition held, kept as the book changes: summed afresh at every listing
    /// it cost each of 200 servers a pass over all 10,000 pins.
    package private(set) var storedBytes: Int

    private static func bytes(of pins: some Sequence<(key: String, value: Pin)>) -> Int {
        pins.reduce(0) { $0 + $1.value.pinned.canonicalBytes + ($1.value.pending?.canonicalBytes ?? 0) }
    }

    /// Why an approval was refused.
    package enum Refusal: Error, Sendable, Hashable {
        /// No pin of that tool for that server.
        case unknownTool(server: String, tool: String)
        /// The tool's definition has not changed: nothing waits for approval.
        case nothingPending(server: String, tool: String)
        /// The pending definition is not the one the operator looked at (`pending` is its digest now).
        case digestMismatch(server: String, tool: String, pending: String)
    }

    /// The tools a server no longer lists whose pins are kept.
    package static let maxUnlisted = 1000

    /// Server id → upstream tool name → pin.
    package private(set) var servers: [String: ServerPins]

    package init(servers: [String: [String: Pin]] = [:]) {
        self.servers = servers.mapValues(ServerPins.init)
        storedBytes = servers.values.reduce(0) { $0 + Self.bytes(of: $1) }
    }

    package subscript(server: String, tool: String) -> Pin? {
        servers[server]?[tool]
    }

    /// Takes server `server`'s listing: pins what is new, marks what changed or changed back. The first of
    /// two tools of one name counts, as routing takes the first.
    ///
    /// `resolved` holds, by digest, definitions the book keeps in the store read into memory beforehand (see
    /// ``storedDefinitionsToRead(_:tools:)``), so that finding what changed reads no file here.
    package mutating func observe(
        _ server: String,
        tools: [ToolDefinition],
        at now: Double,
        resolved: [SHA256.Digest: ToolDefinition] = [:]
    ) -> Observation {
        var observation = Observation()
        let bytesBefore = servers[server].map { Self.bytes(of: $0) } ?? 0
        var pins = servers[server]?.dictionary ?? [:]
        var listed = Set<String>()
        var stored = storedBytes
        /// Whether `tool` may be held in place of `freed` bytes; records the refusal when not.
        func admits(_ tool: ToolDefinition, freeing freed: Int = 0) -> Bool {
            let tooLarge = tool.canonicalBytes > Self.maxDefinitionBytes
            guard tooLarge || stored - freed + tool.canonicalBytes > Self.maxBookBytes else {
                stored += tool.canonicalBytes - freed
                return true
            }
            observation.refused.append(
                RefusedDefinition(tool: tool.name, bytes: tool.canonicalBytes, bookFull: !tooLarge)
            )
            return false
        }
        for tool in tools where listed.insert(tool.name).inserted {
            guard var pin = pins[tool.name] else {
                guard admits(tool) else { continue }
                pins[tool.name] = Pin(pinned: tool, pinnedAt: now)
                observation.newPins += 1
                observation.modified = true
                continue
            }
            let before = pin
            pin.unlistedAt = nil
            if tool.sha256 == pin.pinned.sha256 {
                // The same definition: hold the listing's object, which the catalog holds anyway, rather than the
                // one read from the pin file or kept from an earlier listing (after a restart, 10,000 pins
                // parsed from the file were a second copy of every listed tool, 8 MB).
                pin.pinned = tool
                if let dropped = pin.pending {
                    pin.pending = nil
                    pin.changedAt = nil
                    stored -= dropped.canonicalBytes
                    let diff = ToolDefinitionDiff(from: resolved[dropped.sha256] ?? dropped, to: pin.pinned)
                    observation.changes.append(PinChange(server, .reverted, from: dropped, to: pin.pinned, diff: diff))
                }
            } else if tool.sha256 != pin.pending?.sha256, admits(tool, freeing: pin.pending?.canonicalBytes ?? 0) {
                let diff = ToolDefinitionDiff(from: resolved[pin.pinned.sha256] ?? pin.pinned, to: tool)
                let change = PinChange(server, .changed, from: pin.pinned, to: tool, diff: diff)
                pin.setPending(tool, at: now, diff: change.diff)
                observation.changes.append(change)
            }
            pins[tool.name] = pin
            if pin != before { observation.modified = true }
        }
        if Self.markUnlisted(&pins, listed: listed, at: now) { observation.modified = true }
        servers[server] = ServerPins(pins)
        storedBytes += Self.bytes(of: pins) - bytesBefore
        return observation
    }

    /// Marks the pins of tools the listing no longer has as unlisted since `now`, and forgets the oldest of
    /// them beyond ``maxUnlisted``; `true` when a pin was newly marked.
    private static func markUnlisted(_ pins: inout [String: Pin], listed: Set<String>, at now: Double) -> Bool {
        var marked = false
        for (name, pin) in pins where pin.unlistedAt == nil && !listed.contains(name) {
            pins[name]?.unlistedAt = now
            marked = true
        }
        let unlisted = pins.filter { $0.value.unlistedAt != nil }
        if unlisted.count > maxUnlisted {
            let oldest = unlisted.sorted { ($0.value.unlistedAt ?? 0, $0.key) < ($1.value.unlistedAt ?? 0, $1.key) }
            for (name, _) in oldest.prefix(unlisted.count - maxUnlisted) { pins[name] = nil }
        }
        return marked
    }

    /// The definitions of `server`'s pins kept in the store that a listing of `tools` would diff (a pinned
    /// one the listing differs from, a pending one it drops), to read before ``observe(_:tools:at:resolved:)``.
    package func storedDefinitionsToRead(_ server: String, tools: [ToolDefinition]) -> [ToolDefinition] {
        guard let pins = servers[server] else { return [] }
        var found: [ToolDefinition] = []
        for tool in tools {
            guard let pin = pins[tool.name] else { continue }
            if pin.pinned.isStored, pin.pinned.sha256 != tool.sha256 { found.append(pin.pinned) }
            if let pending = pin.pending, pending.isStored, pending.sha256 != tool.sha256 { found.append(pending) }
        }
        return found
    }

    /// Makes the pending definition of `tool` the pinned one. With `digest`, only when that is the pending
    /// definition's digest, so an operator never approves a definition that changed after they read it.
    package mutating func approve(
        _ server: String,
        tool: String,
        digest: String? = nil,
        at now: Double
    ) -> Result<PinChange, Refusal> {
        guard var pin = servers[server]?[tool] else { return .failure(.unknownTool(server: server, tool: tool)) }
        guard let pending = pin.pending else { return .failure(.nothingPending(server: server, tool: tool)) }
        if let digest, digest != pending.digest {
            return .failure(.digestMismatch(server: server, tool: tool, pending: pending.digest))
        }
        let change = PinChange(
            server,
            .approved,
            from: pin.pinned,
            to: pending,
            diff: pin.diff ?? ToolDefinitionDiff(from: pin.pinned, to: pending)
        )
        storedBytes -= pin.pinned.canonicalBytes
        // Nothing pending first, so that replacing the pinned definition has no change left to diff.
        pin.pending = nil
        pin.changedAt = nil
        pin.pinned = pending
        pin.pinnedAt = now
        servers[server]?[tool] = pin
        return .success(change)
    }

    /// The tools of `server` whose definition changed, each with the fields that did.
    package func changedTools(of server: String) -> [String: [String]] {
        var changed: [String: [String]] = [:]
        for (name, pin) in servers[server] ?? ServerPins() where pin.isChanged {
            changed[name] = pin.changedFields
        }
        return changed
    }

    /// Forgets the pins of servers not in `ids`; `true` when there were some.
    @discardableResult
    package mutating func keepOnly(_ ids: Set<String>) -> Bool {
        let before = servers.count
        servers = servers.filter { ids.contains($0.key) }
        guard servers.count != before else { return false }
        storedBytes = servers.values.reduce(0) { $0 + Self.bytes(of: $1) }
        return true
    }
}

/// A tool whose definition changed, changed back, or was approved: what an event and a log line say.
package struct PinChange: Sendable, Hashable {
    package enum Kind: String, Sendable {
        /// Listed differently from its pinned definition (or from the one pending before).
        case changed
        /// Listed as pinned again: the pending definition was dropped.
        case reverted
        /// An operator made the pending definition the pinned one.
        case approved
    }

    package var server: String
    package var kind: Kind
    /// For `changed` the pinned definition, for `reverted` the dropped one, for `approved` the one replaced.
    package var from: ToolDefinition
    /// For `changed` the new one, for `reverted` the pinned one, for `approved` the one now pinned.
    package var to: ToolDefinition
    package var diff: ToolDefinitionDiff

    init(_ server: String, _ kind: Kind, from: ToolDefinition, to: ToolDefinition, diff: ToolDefinitionDiff? = nil) {
        self.server = server
        self.kind = kind
        self.from = from
        self.to = to
        self.diff = diff ?? ToolDefinitionDiff(from: from, to: to)
    }

    package var tool: String { to.name }
}
