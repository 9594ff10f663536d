import YrdenConfig

/// A config as the gateway starts with it: the document as written, what it decodes to, and where changes
/// made over the admin API are saved.
package struct LoadedConfig: Sendable {
    package var document: ConfigDocument
    package var config: GatewayConfig
    /// The file changes are written back to; `nil` keeps them in memory only.
    package var path: String?
    /// What `${VAR}` references expand from, for entries added later.
    package var environment: [String: String]

    package init(document: ConfigDocument, config: GatewayConfig, path: String?, environment: [String: String]) {
        self.document = document
        self.config = config
        self.path = path
        self.environment = environment
    }

    /// Decodes `document`; throws every problem, with `source` naming where it came from.
    package init(
        document: ConfigDocument,
        source: String,
        path: String?,
        environment: [String: String]
    ) throws(ConfigError) {
        let config = try document.decoded(environment: environment, source: source)
        self.init(document: document, config: config, path: path, environment: environment)
    }
}
