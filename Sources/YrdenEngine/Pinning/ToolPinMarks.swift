import YrdenProtocol

/// What pinning does to one server's tools as clients see them: the changed tools withheld (`enforce`) or
/// served with a flag (`warn`), each with the fields that changed. Published in the server's link with its
/// lists, so listing and routing read it from the snapshot and never wait on the pin book.
package struct ToolPinMarks: Sendable, Hashable {
    /// Left out of every list and refused when called.
    package var withheld: [String: [String]] = [:]
    /// Served with ``metaKey`` in their `_meta`.
    package var flagged: [String: [String]] = [:]

    /// The `_meta` key of the flag a changed tool carries under `warn`.
    package static let metaKey = "io.yrden/toolPin"

    /// What ``withheld`` or ``flagged`` holds for a tool whose definition is too large to pin
    /// (``PinBook/maxDefinitionBytes``) instead of its changed fields; not a pinned field's name, so never a real
    /// change. Flagged, it is served with `{"state": "unpinned", "reason": "too large to pin"}`.
    package static let tooLargeToPin = ["(too large to pin)"]

    package init(withheld: [String: [String]] = [:], flagged: [String: [String]] = [:]) {
        self.withheld = withheld
        self.flagged = flagged
    }

    package var isEmpty: Bool { withheld.isEmpty && flagged.isEmpty }

    /// `tool` (named `name` by its server) as clients see it: `nil` when withheld, with the flag when
    /// flagged, else as it is.
    func exposing(_ tool: JSONObject, name: String) -> JSONObject? {
        guard withheld[name] == nil else { return nil }
        guard let fields = flagged[name] else { return tool }
        return Self.flagging(tool, changedFields: fields)
    }

    /// `tool` with `_meta["io.yrden/toolPin"] = {"state": "changed", "changedFields": […]}` (a `_meta` that
    /// is not an object is left alone: the tool is then served unflagged rather than altered further).
    static func flagging(_ tool: JSONObject, changedFields: [String]) -> JSONObject {
        var meta: JSONObject
        switch tool["_meta"] {
        case nil: meta = JSONObject()
        case .object(let existing)?: meta = existing
        default: return tool
        }
        meta[metaKey] =
            changedFields == tooLargeToPin
            ? ["state": "unpinned", "reason": "too large to pin"]
            : ["state": "changed", "changedFields": .array(changedFields.map(JSONValue.string))]
        var flagged = tool
        flagged["_meta"] = .object(meta)
        return flagged
    }
}

/// Marks as computed from the pin book at one revision: a connection publishing marks computed before an
/// approval that was published first does not bring the withheld tool back.
package struct RevisedPinMarks: Sendable, Hashable {
    package var marks: ToolPinMarks
    package var revision: UInt64
}

/// A server's lists as pinning left them: the marks to publish with them, and the events of the changes found,
/// to announce once the marks are published.
struct PinnedTools: Sendable {
    var marks: RevisedPinMarks
    var announcements: [GatewayEvent]
}
