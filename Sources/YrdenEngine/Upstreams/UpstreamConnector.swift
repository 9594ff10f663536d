import AsyncHTTPClient
import YrdenTransport

/// What the engine needs to reach upstreams, given to it by the application (or by a test).
///
/// The one `HTTPClient` is created and shut down by the composition root, so every HTTP upstream shares its
/// connection pool and none outlives the process's service group. Tests give scripted channels and a
/// manual clock instead (`YrdenTesting`).
package struct UpstreamConnector: Sendable {
    /// Opens upstream channels: the live transports, or fakes.
    package var channels: any UpstreamChannelFactory
    /// Deadlines, retries and pings are timed by it.
    package var time: any TimeSource
    /// Sign-ins of OAuth servers; `nil` in a gateway built without OAuth (such servers then fail to connect
    /// with a message that says so).
    package var credentials: (any UpstreamCredentials)?
    /// Variables no stdio child inherits, besides the gateway's fixed secrets.
    package var withheldEnvironment: WithheldEnvironment
    /// How many users' own sessions a `perUser` server of the handshake era keeps (``UserSessions``).
    package var userSessionLimits = UserSessionLimits()

    /// `nil` when the channels are not the live ones.
    package var httpClient: HTTPClient? { (channels as? LiveChannels)?.httpClient }

    package init(
        channels: any UpstreamChannelFactory = LiveChannels(),
        time: any TimeSource = SystemTime(),
        credentials: (any UpstreamCredentials)? = nil,
        withheldEnvironment: WithheldEnvironment = WithheldEnvironment()
    ) {
        self.channels = channels
        self.time = time
        self.credentials = credentials
        self.withheldEnvironment = withheldEnvironment
    }
}
