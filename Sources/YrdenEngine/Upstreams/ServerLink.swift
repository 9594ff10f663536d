import YrdenConfig
import YrdenOAuth
import YrdenTransport

/// Everything the engine knows about one configured server at this moment.
package struct ServerLink: Sendable {
    package var spec: ServerSpec
    package var state: ConnectionState
    package var client: UpstreamClient?
    package var handshake: UpstreamHandshake?
    package var catalog: ServerCatalog?
    /// Where the server's OAuth sign-in stands; `nil` for a server that does not use OAuth.
    package var auth: OAuthProgress?
    /// Whether a bare `url` was last reached over legacy HTTP+SSE after refusing Streamable HTTP, so operators
    /// see the transport really in use; kept across reconnects until the entry changes.
    package var fellBackToSSE = false
    package let log: LogRing

    /// `stdio`, `http` or `sse`: the transport in use, `sse` for a bare `url` that fell back to it.
    package var transportName: String { fellBackToSSE ? "sse" : spec.transport.kindName }

    /// A link not yet connected; `log` keeps the ring of a server being reconfigured, so its history stays.
    init(spec: ServerSpec, log: LogRing? = nil) {
        self.spec = spec
        self.state = spec.disabled ? .disabled : .idle
        self.log = log ?? LogRing(server: spec.id)
    }
}
