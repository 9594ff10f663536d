import YrdenProtocol

/// The entry point: bytes or a file in, a validated ``GatewayConfig`` or every problem out.
///
/// Order of work: parse JSON (a syntax error, with line and column, or a document that is not an object is then
/// the only problem), decode and validate the tree with `${VAR}` expanded from `environment`, apply `YRDEN_*`
/// overrides, then check the security default that a non-loopback listener has an admin token. The environment
/// is a parameter, never read from the process, so tests and the CLI control exactly what the config sees.
/// Decoding goes through ``ConfigDocument``, the form the admin API edits, so an edit and a file are judged by
/// one path.
package enum ConfigLoader {
    package static func decode(
        _ bytes: [UInt8],
        source: String,
        environment: [String: String]
    ) throws(ConfigError) -> GatewayConfig {
        try ConfigDocument(parsing: bytes, source: source).decoded(environment: environment, source: source)
    }

    /// Reads and decodes the file at `path`; the file's path is the ``ConfigError/source``.
    package static func load(path: String, environment: [String: String]) throws(ConfigError) -> GatewayConfig {
        try loadDocument(path: path).decoded(environment: environment, source: path)
    }

    /// Reads, decodes and validates the file at `path` for `yrden check-config`: the config, and the notices
    /// about hosts' keys that a running gateway would not act on.
    package static func check(
        path: String,
        environment: [String: String]
    ) throws(ConfigError) -> (config: GatewayConfig, notices: [ConfigProblem]) {
        try loadDocument(path: path).checked(environment: environment, source: path)
    }

    /// Reads the file at `path` as a document to edit and write back, without decoding it; the file's path is
    /// the ``ConfigError/source``.
    package static func loadDocument(path: String) throws(ConfigError) -> ConfigDocument {
        let bytes: [UInt8]
        switch ConfigFile.read(path: path) {
        case .success(let contents): bytes = contents
        case .failure(let finding):
            let problem = ConfigProblem(path: "", message: finding.message, fix: finding.fix)
            throw ConfigError(source: path, problems: [problem])
        }
        return try ConfigDocument(parsing: bytes, source: path)
    }

    /// A syntax error placed by line and column (1-based, columns in characters) as editors show them.
    static func parseProblem(_ error: JSONParseError, in bytes: [UInt8]) -> ConfigProblem {
        if bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            return ConfigProblem(
                path: "",
                message: "the file is empty",
                fix: #"write a JSON object, at least {"mcpServers": {}}"#
            )
        }
        let (line, column) = location(of: error.offset, in: bytes)
        return ConfigProblem(
            path: "",
            message: "invalid JSON at line \(line), column \(column): \(error.reason)",
            fix: "correct the syntax there (JSON allows no comments, trailing commas or single-quoted strings)"
        )
    }

    static func location(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<end where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
        return (line, column)
    }
}
