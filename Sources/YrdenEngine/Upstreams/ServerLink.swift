import YrdenConfig
import YrdenTransport

/// Everything the engine knows about one configured server at this moment.
package struct ServerLink: Sendable {
    package var spec: ServerSpec
    package var state: ConnectionState
    package var client: UpstreamClient?
    package var handshake: UpstreamHandshake?
    package var catalog: ServerCatalog?
    package let log: LogRing

    init(spec: ServerSpec) {
        self.spec = spec
        self.state = spec.disabled ? .disabled : .idle
        self.log = LogRing()
    }
}
