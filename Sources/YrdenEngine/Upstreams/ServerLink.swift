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
    package let log: LogRing

    /// A link not yet connected; `log` keeps the ring of a server being reconfigured, so its history stays.
    init(spec: ServerSpec, log: LogRing? = nil) {
        self.spec = spec
        self.state = spec.disabled ? .disabled : .idle
        self.log = log ?? LogRing(server: spec.id)
    }
}
