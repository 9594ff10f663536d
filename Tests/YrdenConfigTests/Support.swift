@testable import YrdenConfig

/// Decoding helpers shared by the suites: configs are written inline as JSON text.
enum Config {
    static func decode(_ text: String, environment: [String: String] = [:]) throws(ConfigError) -> GatewayConfig {
        try ConfigLoader.decode(Array(text.utf8), source: "test.json", environment: environment)
    }

    /// The problems a config has; empty when it decodes.
    static func problems(_ text: String, environment: [String: String] = [:]) -> [ConfigProblem] {
        do {
            _ = try decode(text, environment: environment)
            return []
        } catch {
            return error.problems
        }
    }

    /// The problems of a document with one server entry, written as the JSON object text `entry`.
    static func serverProblems(_ entry: String, environment: [String: String] = [:]) -> [ConfigProblem] {
        problems(#"{"mcpServers": {"s": \#(entry)}}"#, environment: environment)
    }

    /// The single server decoded from `entry`.
    static func server(_ entry: String, environment: [String: String] = [:]) throws(ConfigError) -> ServerSpec? {
        try decode(#"{"mcpServers": {"s": \#(entry)}}"#, environment: environment).servers.first
    }
}
