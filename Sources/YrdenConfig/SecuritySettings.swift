/// The `security` section: how far the gateway trusts what upstreams say about themselves.
package struct SecuritySettings: Sendable, Hashable {
    /// What happens when a server changes a tool's definition after the gateway first saw it.
    package var toolPinning: ToolPinningMode

    /// `warn`: pinning costs nothing to turn on (every tool is still served), yet no change goes unnoticed.
    package static let defaultToolPinning = ToolPinningMode.warn

    package init(toolPinning: ToolPinningMode = defaultToolPinning) {
        self.toolPinning = toolPinning
    }
}

/// `security.toolPinning`: what a changed tool definition (a "rug pull": a description or schema swapped after
/// an operator looked at it) does.
package enum ToolPinningMode: String, Sendable, Hashable, CaseIterable {
    /// Nothing is hashed, stored or withheld.
    case off
    /// Every tool is pinned at first sight and served; a changed one is served too, flagged, logged and
    /// announced as an event.
    case warn
    /// As `warn`, but a changed tool is withheld from every list and call until an operator approves it.
    case enforce
}
