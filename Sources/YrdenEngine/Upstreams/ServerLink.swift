import YrdenConfig
import YrdenTransport

/// Everything the engine knows about one configured server at this moment. Its ``UpstreamConnection`` is the
/// only writer of its connection's fields.
package struct ServerLink: Sendable {
    package var spec: ServerSpec
    package var state: ConnectionState
    /// The connection in use; `nil` whenever the server is not connected.
    package var client: UpstreamClient?
    /// The current connection's handshake; `nil` whenever the server is not connected.
    package var handshake: UpstreamHandshake?
    /// The lists of the current connection, or of the last one while the server is down (operators list
    /// them); only a connected server's lists enter the aggregate.
    package var catalog: ServerCatalog?
    /// The handshake of the last successful connection, kept across disconnects for operators.
    package var lastHandshake: UpstreamHandshake?
    /// The error that ended the last connection or attempt; kept while the next attempt runs, cleared once
    /// connected.
    package var lastFailure: UpstreamFailure?
    /// Where the server's OAuth sign-in stands; `nil` for a server that does not use OAuth.
    package var auth: SignInStatus?
    /// Whether a bare `url` was last reached over legacy HTTP+SSE after refusing Streamable HTTP, so operators
    /// see the transport really in use; kept across reconnects until the entry changes.
    package var fellBackToSSE = false
    /// What pinning does to the server's tools now: withheld or flagged ones (empty while nothing changed).
    package private(set) var pinMarks = ToolPinMarks()
    /// The pin book revision ``pinMarks`` were made at.
    private var pinRevision: UInt64 = 0
    /// The connection that owns this link (0: none, a disabled server).
    var owner: UInt64 = 0
    package let log: LogRing

    /// `stdio`, `http` or `sse`: the transport in use, `sse` for a bare `url` that fell back to it.
    package var transportName: String { fellBackToSSE ? "sse" : spec.transport.kindName }

    /// A link not yet connected. A server being reconfigured keeps its log ring and what operators knew of
    /// its last connection (`previous`), so its history stays.
    init(spec: ServerSpec, previous: ServerLink? = nil) {
        self.spec = spec
        self.state = spec.disabled ? .disabled : .idle
        self.log = previous?.log ?? LogRing(server: spec.id)
        self.lastHandshake = previous?.lastHandshake
        self.lastFailure = previous?.lastFailure
        self.catalog = previous?.catalog
        self.pinMarks = previous?.pinMarks ?? ToolPinMarks()
        self.pinRevision = previous?.pinRevision ?? 0
    }

    /// Takes `revised` unless the marks held were made at a later revision of the pin book (an approval
    /// published while a connection was still loading its lists).
    mutating func adopt(_ revised: RevisedPinMarks) {
        guard revised.revision >= pinRevision else { return }
        pinMarks = revised.marks
        pinRevision = revised.revision
    }
}
