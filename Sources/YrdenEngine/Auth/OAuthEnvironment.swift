import YrdenOAuth
import YrdenStorage

/// What the engine needs to sign in to OAuth servers, built by the application.
package struct OAuthEnvironment: Sendable {
    /// The one router every pending sign-in is registered with; the front's callback hands it each return.
    package var router: OAuthCallbackRouter
    /// Where tokens and client registrations are kept (the data directory, sealed when a key is set).
    package var secrets: any SecretStore
    /// Where authorization servers send the browser back: the gateway's own `/oauth/callback`.
    package var redirectURI: String
    /// How the OAuth client reaches authorization servers (the shared upstream HTTP client).
    package var http: OAuthHTTP

    package init(router: OAuthCallbackRouter, secrets: any SecretStore, redirectURI: String, http: OAuthHTTP) {
        self.router = router
        self.secrets = secrets
        self.redirectURI = redirectURI
        self.http = http
    }
}
