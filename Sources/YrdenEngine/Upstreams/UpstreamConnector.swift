import AsyncHTTPClient

/// What the engine needs to open connections to remote upstreams; owned by the application.
///
/// The one `HTTPClient` is created and shut down by the composition root, so every HTTP upstream shares its
/// connection pool and none outlives the process's service group.
package struct UpstreamConnector: Sendable {
    /// `nil` in a gateway built without one (tests of the engine alone): HTTP upstreams then fail to connect
    /// with a message that says so.
    package var httpClient: HTTPClient?
    /// `nil` in a gateway built without one: OAuth servers then fail with a message that says so.
    package var oauth: OAuthEnvironment?
    /// Variables no stdio child inherits, besides the gateway's fixed secrets.
    package var withheldEnvironment: WithheldEnvironment

    package init(
        httpClient: HTTPClient? = nil,
        oauth: OAuthEnvironment? = nil,
        withheldEnvironment: WithheldEnvironment = WithheldEnvironment()
    ) {
        self.httpClient = httpClient
        self.oauth = oauth
        self.withheldEnvironment = withheldEnvironment
    }
}
