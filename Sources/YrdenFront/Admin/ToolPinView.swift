import YrdenConfig
import YrdenEngine
import YrdenProtocol

/// A pinned tool as the admin API shows it (`ToolPin` in `openapi.yaml`): its state and pinned digest, and
/// for a changed one what changed, with both definitions, so an operator can decide before approving.
enum ToolPinView {
    static func json(server: String, tool: String, pin: PinBook.Pin, mode: ToolPinningMode) -> JSONValue {
        var change: JSONValue = .null
        if let pending = pin.pending {
            change = [
                "digest": .string(pending.digest),
                "changedAt": .string(RFC3339.string(epochSeconds: pin.changedAt ?? pin.pinnedAt)),
                "diff": (pin.diff ?? ToolDefinitionDiff(from: pin.pinned, to: pending)).json,
                "pinned": pin.pinned.json,
                "pending": pending.json,
            ]
        }
        return [
            "server": .string(server),
            "tool": .string(tool),
            "state": .string(pin.isChanged ? "changed" : "pinned"),
            "withheld": .bool(pin.isChanged && pin.unlistedAt == nil && mode == .enforce),
            "listed": .bool(pin.unlistedAt == nil),
            "digest": .string(pin.pinned.digest),
            "pinnedAt": .string(RFC3339.string(epochSeconds: pin.pinnedAt)),
            "change": change,
        ]
    }

    /// The data of a `tool.changed`, `tool.reverted` or `tool.approved` event.
    static func event(_ event: ToolPinEvent) -> JSONValue {
        let change = event.change
        return [
            "server": .string(change.server),
            "tool": .string(change.tool),
            "change": .string(change.kind.rawValue),
            "withheld": .bool(event.withheld),
            "digest": .string(change.to.digest),
            "previousDigest": .string(change.from.digest),
            "diff": change.diff.json,
        ]
    }
}
