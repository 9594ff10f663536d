import AsyncHTTPClient
import Logging
import YrdenConfig
import YrdenControl
import YrdenOAuth
import YrdenSharedState
import YrdenStorage

/// Where OAuth tokens are kept and where browsers come back to, from the config and the environment.
///
/// Tokens go to the data directory (`--data-dir`, `gateway.dataDir`, `YRDEN_DATA_DIR`; by default
/// `$XDG_DATA_HOME/yrden` or `~/.local/share/yrden`), one 0600 file per server, sealed with AES-GCM when
/// `YRDEN_SECRET_KEY` is set. The redirect URI is `publicURL` + `/oauth/callback` when the gateway sits behind
/// a proxy, else the dedicated callback listener (`gateway.oauthCallback`) when there is one, else the
/// main listener's own address.
struct OAuthSetup {
    let loaded: LoadedConfig
    let logger: Logger

    /// The sign-ins of every OAuth server, sharing the upstream HTTP client and one callback router; their
    /// tokens in `shared` (the store replicas share) when there is one, where what another replica changes
    /// reaches them.
    func credentials(httpClient: HTTPClient, shared: SharedState? = nil) throws -> OAuthCredentials {
        let key = try loaded.environment["YRDEN_SECRET_KEY"].flatMap { $0.isEmpty ? nil : try SecretBox(keyText: $0) }
        let secrets: any SecretStore
        if let shared {
            secrets = shared.secretStore
            let names = shared.secrets.names(startingWith: SharedSignIns.prefix)
            SharedSignIns.removeExpired(names, from: secrets, at: OAuthClock.system.now())
        } else if let directory = dataDirectory {
            secrets = try FileSecretStore(directory: directory, key: key)
        } else {
            logger.warning(
                "no data directory (set --data-dir or YRDEN_DATA_DIR): OAuth tokens will not survive a restart"
            )
            secrets = InMemorySecretStore()
        }
        let credentials = OAuthCredentials(
            router: OAuthCallbackRouter(),
            secrets: secrets,
            redirectURI: redirectURI,
            http: .live(client: httpClient),
            replicaStore: shared.map { SharedOAuthStore(database: $0.database, box: $0.box) },
            logger: logger
        )
        shared?.secretChanges.listen { [weak credentials] name in credentials?.secretChanged(name) }
        return credentials
    }

    var dataDirectory: String? { loaded.dataDirectory }

    var redirectURI: String {
        let settings = loaded.config.gateway
        if let publicURL = settings.publicURL {
            return (publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL) + "/oauth/callback"
        }
        var host = settings.oauthCallback?.host ?? settings.listenHost
        if host == "0.0.0.0" || host == "::" { host = "127.0.0.1" }
        if host.contains(":") { host = "[\(host)]" }
        return "http://\(host):\(settings.oauthCallback?.port ?? settings.listenPort)/oauth/callback"
    }
}
