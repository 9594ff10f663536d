import Logging
import YrdenConfig
import YrdenProtocol
import YrdenTransport

/// Why an operator's approval of a tool definition was refused.
package enum ToolApprovalError: Error, Sendable, Hashable {
    case unknownServer(String)
    case refused(PinBook.Refusal)
    /// Approved for this run, but the book could not be written: a restart would bring the change back.
    case notSaved(String)
    /// Too many approvals wait for their save already (``ToolPins/maxWaitingApprovals``); nothing changed.
    case busy
}

/// Tool pinning as the gateway applies it, an owner of its own: lists pinned as connections load them,
/// changes logged and announced, operators' approvals saved and published, mode changes applied.
///
/// The gateway owns one and calls it; what it changes in the snapshot (each server's ``ToolPinMarks``) it
/// changes through the registry's one writer, and its pin book (``ToolPins``) is changed by nobody else.
package final class ToolPinning: Sendable {
    /// The pin book, its mode and its saving.
    let pins: ToolPins
    private let registry: ServerRegistry
    private let events: EventBus
    /// The gateway's own log ring, for what concerns no one server (mode changes, failed saves).
    private let log: LogRing
    private let logger: Logger
    private let time: any TimeSource

    init(
        pins: ToolPins,
        registry: ServerRegistry,
        events: EventBus,
        log: LogRing,
        logger: Logger,
        time: any TimeSource
    ) {
        self.pins = pins
        self.registry = registry
        self.events = events
        self.log = log
        self.logger = logger
        self.time = time
        // Servers removed from the config while the gateway was down take their pins with them.
        forgetRemovedServers()
    }

    /// The mode in force (`security.toolPinning`).
    package var mode: ToolPinningMode { pins.mode }

    /// The pin book as it stands now.
    package var book: PinBook { pins.book }

    /// Where the book is kept, for log lines.
    package var location: String { pins.store.location }

    /// Pins server `server`'s tools as `catalog` lists them and logs every change. Returns the marks to publish
    /// with the lists and the changes' events, which the caller announces once it has published the marks: an
    /// operator (or script) told that a tool changed then finds it flagged or withheld, not served as before.
    func pinTools(of server: String, _ catalog: ServerCatalog) -> PinnedTools {
        let (observation, marks) = pins.observe(server, tools: catalog.tools)
        if observation.newPins > 0 {
            let line = "pinned \(observation.newPins) new tool definition\(observation.newPins == 1 ? "" : "s")"
            logger.info("\(line)", metadata: ["server": "\(server)"])
            registry.logRing(server)?.append(line, level: .info, event: "pinning")
        }
        let announcements = report(observation.changes)
        reportRefused(observation.refused, of: server)
        if observation.modified { pins.requestSave() }
        return PinnedTools(marks: marks, announcements: announcements)
    }

    /// A warning in the gateway's log and the server's ring for each definition too large to pin.
    private func reportRefused(_ refused: [PinBook.RefusedDefinition], of server: String) {
        for refusal in refused {
            let bound =
                refusal.bookFull
                ? "would take the pinned definitions past \(PinBook.maxBookBytes / 1_048_576) MiB"
                : "is larger than the \(PinBook.maxDefinitionBytes / 1_048_576) MiB a pinned definition may have"
            let line =
                "tool \(refusal.tool) of server \(server) was not pinned: its definition (\(refusal.bytes) bytes) "
                + "\(bound); it is withheld while pinning is on"
            logger.warning("\(line)", metadata: ["server": "\(server)", "tool": "\(refusal.tool)"])
            registry.logRing(server)?.append(line, level: .warning, event: "pinning", metadata: ["tool": refusal.tool])
        }
    }

    /// How long an approval waits for the pin file to hold it before it is answered that it does not yet.
    package static let approvalSaveDeadline = Duration.seconds(30)

    /// Approves the pending definition of `tool` (its upstream name) on server `server`: it is pinned, served
    /// again, and the book is saved before this returns. With `digest`, only that pending definition.
    ///
    /// The caller's own work is one locked step of the pin book; the pin saver (``runSaver()``) publishes
    /// the server's lists and writes the file off the event loop, for every approval made meanwhile at once,
    /// and this waits for it.
    @discardableResult
    package func approve(
        _ tool: String,
        of server: String,
        digest: String? = nil
    ) async throws(ToolApprovalError) -> PinChange {
        guard registry.snapshot.links[server] != nil else { throw .unknownServer(server) }
        let (change, round) = try pins.approve(server, tool: tool, digest: digest).get()
        defer { pins.approvalAnswered() }
        let outcome = await round.outcome(by: time.now + Self.approvalSaveDeadline, time: time)
        // After the round, so whoever follows the event finds the tool served already.
        events.publish(report([change]))
        switch outcome {
        case .saved:
            return change
        case .failed(let reason):
            throw .notSaved(reason)
        case .timedOut:
            throw .notSaved("the pin file was not written within \(Self.approvalSaveDeadline); it is being written")
        }
    }

    /// The pin saver, a child task of the gateway's run: publishes approvals and writes the pin book whenever
    /// asked.
    func runSaver() async {
        await pins.keepSaving(publish: { await self.republishMarks(of: $0) }, failed: notSaved)
    }

    /// The last write of the pin book as the gateway stops.
    func saveAtEnd() {
        pins.saveAtEnd(failed: notSaved)
    }

    /// Logged, and kept in the gateway's own ring (`GET /api/v1/logs`), where an operator looks.
    private func notSaved(_ error: any Error) {
        logger.error("could not save the tool pins", metadata: ["to": "\(location)", "reason": "\(error)"])
        log.append("could not save the tool pins to \(location): \(error)", level: .error, event: "pinning")
    }

    /// Applies a new `security.toolPinning` (a reload): connected servers' lists are pinned at once when
    /// pinning comes on, and every server's marks follow the new mode.
    package func setMode(_ mode: ToolPinningMode) async {
        guard pins.setMode(mode) else { return }
        logger.notice("tool pinning is now \(mode.rawValue)")
        log.append("tool pinning is now \(mode.rawValue)", level: .notice, event: "pinning")
        let current = registry.snapshot
        var announcements: [GatewayEvent] = []
        if mode != .off {
            if pins.keepOnly(Set(current.order)) { pins.requestSave() }
            for id in current.order {
                guard let link = current.links[id], link.state.isConnected, let catalog = link.catalog else { continue }
                announcements += pinTools(of: id, catalog).announcements
            }
        }
        await republishMarks(of: current.order)
        events.publish(announcements)
    }

    /// Takes in the pin book another replica saved to the shared store: an approval made there is served here
    /// (the marks of the servers it changed are published again).
    package func adoptShared(_ book: PinBook) async {
        let changed = pins.adoptShared(book)
        guard !changed.isEmpty else { return }
        logger.info("took in tool pins another replica saved", metadata: ["servers": "\(changed)"])
        await republishMarks(of: changed)
    }

    /// Drops the pins of servers that are gone from the config.
    func forgetRemovedServers() {
        if pins.keepOnly(Set(registry.snapshot.order)) { pins.requestSave() }
    }

    /// Every pin, changed ones first, then in config order and by tool name.
    package var entries: [(server: String, tool: String, pin: PinBook.Pin)] {
        let book = pins.book
        let order = registry.snapshot.order
        var entries: [(server: String, tool: String, pin: PinBook.Pin)] = []
        for server in order + book.servers.keys.filter({ !order.contains($0) }).sorted() {
            for (tool, pin) in book.servers[server] ?? ServerPins() { entries.append((server, tool, pin)) }
        }
        return entries.filter { $0.pin.isChanged } + entries.filter { !$0.pin.isChanged }
    }

    /// The servers' marks as the pin book stands now, into the snapshot (the aggregate follows).
    func republishMarks(of ids: [String]) async {
        let marks = ids.map { pins.marks(of: $0) }
        await registry.update { snapshot in
            for (id, revised) in zip(ids, marks) { snapshot.links[id]?.adopt(revised) }
        }
    }

    /// A log line (warning for a change, with its diff) in the gateway's log and the server's ring, and an
    /// event, for each change.
    private func report(_ changes: [PinChange]) -> [GatewayEvent] {
        guard !changes.isEmpty else { return [] }
        let mode = pins.mode
        var events: [GatewayEvent] = []
        for change in changes {
            let withheld = change.kind == .changed && mode == .enforce
            let (level, line) = Self.logLine(change, withheld: withheld)
            logger.log(
                level: level,
                "\(line)",
                metadata: ["server": "\(change.server)", "tool": "\(change.tool)", "digest": "\(change.to.digest)"]
            )
            registry.logRing(change.server)?.append(
                line,
                level: level,
                event: "pinning",
                metadata: ["tool": change.tool, "digest": change.to.digest]
            )
            events.append(.toolPin(ToolPinEvent(change: change, withheld: withheld)))
        }
        return events
    }

    private static func logLine(_ change: PinChange, withheld: Bool) -> (Logger.Level, String) {
        let tool = "tool \(change.tool) of server \(change.server)"
        switch change.kind {
        case .changed:
            let action =
                withheld
                ? "withheld until an operator approves it (\(approvalHint(server: change.server, tool: change.tool)))"
                : "still served, flagged"
            return (.warning, "\(tool) changed its definition; \(action): \(change.diff.summary)")
        case .reverted:
            return (.notice, "\(tool) is back to its pinned definition: \(change.diff.summary)")
        case .approved:
            return (.notice, "\(tool): its new definition was approved and pinned: \(change.diff.summary)")
        }
    }

    /// How an operator approves a tool's new definition, for messages.
    static func approvalHint(server: String, tool: String) -> String {
        let quotedTool = tool.allSatisfy { $0.isLetter || $0.isNumber || "_-.".contains($0) } ? tool : "'\(tool)'"
        return "yrden tools approve \(server) \(quotedTool), or POST /api/v1/servers/\(server)/tools/"
            + "\(percentEncoded(tool))/approve"
    }

    /// The error a client gets for calling a tool whose new definition waits for approval.
    static func withheldTool(_ name: String, route: Route, changedFields: [String]) -> JSONRPCError {
        guard changedFields != ToolPinMarks.tooLargeToPin else {
            return JSONRPCError(
                code: JSONRPCError.invalidParams("").code,
                message: "Tool \(name) is withheld: server \(route.server) lists a definition too large to pin "
                    + "(more than \(PinBook.maxDefinitionBytes) bytes, or past what the pin file may hold)",
                data: [
                    "reason": "tool_definition_too_large", "server": .string(route.server),
                    "tool": .string(route.name),
                ]
            )
        }
        return JSONRPCError(
            code: JSONRPCError.invalidParams("").code,
            message: "Tool \(name) is withheld: server \(route.server) changed its definition "
                + "(\(changedFields.joined(separator: ", "))) since it was pinned, and an operator must approve "
                + "the new one before it can be used (\(approvalHint(server: route.server, tool: route.name)))",
            data: [
                "reason": "tool_definition_changed", "server": .string(route.server), "tool": .string(route.name),
                "changedFields": .array(changedFields.map(JSONValue.string)),
            ]
        )
    }

    private static func percentEncoded(_ segment: String) -> String {
        var encoded = ""
        for byte in segment.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if byte < 0x80, character.isLetter || character.isNumber || "-._~".contains(character) {
                encoded.append(character)
            } else {
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }
}
