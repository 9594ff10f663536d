import YrdenConfig
import YrdenTransport

/// Everything the engine knows about one configured server at this moment. Its ``UpstreamConnection`` is the
/// only writer of its connection's fields.
///
/// A value with its fields in one shared box, copied on write: every forwarded call reads its server's link
/// out of the snapshot (`snapshot.links[id]?.client`), and reading a struct of a dozen references out of a
/// dictionary copies it, a retain and a release of each (4 % of the gateway's CPU under load). Writes are
/// rare (a connection's state changes) and copy the box only when it is shared.
package struct ServerLink: Sendable {
    package internal(set) var spec: ServerSpec {
        get { fields.spec }
        set { unique.spec = newValue }
    }
    package internal(set) var state: ConnectionState {
        get { fields.state }
        set { unique.state = newValue }
    }
    /// The connection in use; `nil` whenever the server is not connected.
    package internal(set) var client: UpstreamClient? {
        get { fields.client }
        set { unique.client = newValue }
    }
    /// The current connection's handshake; `nil` whenever the server is not connected.
    package internal(set) var handshake: UpstreamHandshake? {
        get { fields.handshake }
        set { unique.handshake = newValue }
    }
    /// The lists of the current connection, or of the last one while the server is down (operators list
    /// them); only a connected server's lists enter the aggregate.
    package internal(set) var catalog: ServerCatalog? {
        get { fields.catalog }
        set { unique.catalog = newValue }
    }
    /// The handshake of the last successful connection, kept across disconnects for operators.
    package internal(set) var lastHandshake: UpstreamHandshake? {
        get { fields.lastHandshake }
        set { unique.lastHandshake = newValue }
    }
    /// The era the server was found to speak (its probe's answer, or a handshake), kept for the server's life
    /// in the gateway so that it is probed once, not at every connection attempt; `nil` before any.
    package internal(set) var knownEra: UpstreamEra? {
        get { fields.knownEra }
        set { unique.knownEra = newValue }
    }
    /// The error that ended the last connection or attempt; kept while the next attempt runs, cleared once
    /// connected.
    package internal(set) var lastFailure: UpstreamFailure? {
        get { fields.lastFailure }
        set { unique.lastFailure = newValue }
    }
    /// Where the server's OAuth sign-in stands; `nil` for a server that does not use OAuth.
    package internal(set) var auth: SignInStatus? {
        get { fields.auth }
        set { unique.auth = newValue }
    }
    /// Whether a bare `url` was last reached over legacy HTTP+SSE after refusing Streamable HTTP, so operators
    /// see the transport really in use; kept across reconnects until the entry changes.
    package var fellBackToSSE: Bool {
        get { fields.fellBackToSSE }
        set { unique.fellBackToSSE = newValue }
    }
    /// What pinning does to the server's tools now: withheld or flagged ones (empty while nothing changed).
    package var pinMarks: ToolPinMarks { fields.pinMarks }
    /// The connection that owns this link (0: none, a disabled server).
    var owner: UInt64 {
        get { fields.owner }
        set { unique.owner = newValue }
    }
    package var log: LogRing { fields.log }

    private var fields: Fields

    /// `stdio`, `http` or `sse`: the transport in use, `sse` for a bare `url` that fell back to it.
    package var transportName: String { fellBackToSSE ? "sse" : spec.transport.kindName }

    /// A link not yet connected. A server being reconfigured keeps its log ring and what operators knew of
    /// its last connection (`previous`), so its history stays.
    init(spec: ServerSpec, previous: ServerLink? = nil) {
        fields = Fields(spec: spec, log: previous?.log ?? LogRing(server: spec.id))
        fields.state = spec.disabled ? .disabled : .idle
        fields.lastHandshake = previous?.lastHandshake
        fields.knownEra = previous?.knownEra
        fields.lastFailure = previous?.lastFailure
        fields.catalog = previous?.catalog
        fields.pinMarks = previous?.pinMarks ?? ToolPinMarks()
        fields.pinRevision = previous?.fields.pinRevision ?? 0
    }

    /// Takes `revised` unless the marks held were made at a later revision of the pin book (an approval
    /// published while a connection was still loading its lists).
    mutating func adopt(_ revised: RevisedPinMarks) {
        guard revised.revision >= fields.pinRevision else { return }
        unique.pinMarks = revised.marks
        unique.pinRevision = revised.revision
    }

    /// The box, copied first if another link shares it.
    private var unique: Fields {
        mutating get {
            if !isKnownUniquelyReferenced(&fields) { fields = Fields(copying: fields) }
            return fields
        }
    }

    /// Unchecked: a box is written only through ``unique``, that is while no other link (and so no other
    /// thread) holds it.
    private final class Fields: @unchecked Sendable {
        var spec: ServerSpec
        var state: ConnectionState = .idle
        var client: UpstreamClient?
        var handshake: UpstreamHandshake?
        var catalog: ServerCatalog?
        var lastHandshake: UpstreamHandshake?
        var knownEra: UpstreamEra?
        var lastFailure: UpstreamFailure?
        var auth: SignInStatus?
        var fellBackToSSE = false
        var pinMarks = ToolPinMarks()
        /// The pin book revision ``pinMarks`` were made at.
        var pinRevision: UInt64 = 0
        var owner: UInt64 = 0
        let log: LogRing

        init(spec: ServerSpec, log: LogRing) {
            self.spec = spec
            self.log = log
        }

        init(copying other: Fields) {
            spec = other.spec
            state = other.state
            client = other.client
            handshake = other.handshake
            catalog = other.catalog
            lastHandshake = other.lastHandshake
            knownEra = other.knownEra
            lastFailure = other.lastFailure
            auth = other.auth
            fellBackToSSE = other.fellBackToSSE
            pinMarks = other.pinMarks
            pinRevision = other.pinRevision
            owner = other.owner
            log = other.log
        }
    }
}

/// The MCP era a server speaks to the gateway.
package enum UpstreamEra: Sendable, Hashable {
    /// An `initialize` handshake (every revision up to 2025-11-25).
    case handshake
    /// 2026-07-28: `server/discover`, then the envelope on every request.
    case modern
}
