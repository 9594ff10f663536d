import YrdenProtocol

/// The entry point: bytes or a file in, a validated ``GatewayConfig`` or every problem out.
///
/// Order of work: parse JSON (a syntax error is the only problem then, with line and column), decode and
/// validate the tree with `${VAR}` expanded from `environment`, apply `YRDEN_*` overrides, then check the
/// security default that a non-loopback listener has an admin token. The environment is a parameter, never read
/// from the process, so tests and the CLI control exactly what the config sees.
package enum ConfigLoader {
    package static func decode(
        _ bytes: [UInt8],
        source: String,
        environment: [String: String]
    ) throws(ConfigError) -> GatewayConfig {
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue.parse(text)
        } catch {
            throw ConfigError(source: source, problems: [parseProblem(error, in: text)])
        }
        let context = DecodingContext(environment: environment)
        var config = ConfigDecoder(context: context).decodeDocument(value)
        EnvironmentOverrides.apply(to: &config.gateway, environment: environment, context: context)
        let settled = !context.hasProblem(at: "gateway.listen") && !context.hasProblem(at: "gateway.adminToken")
        if settled, let problem = config.gateway.exposureProblem {
            context.report(problem)
        }
        guard context.problems.isEmpty else {
            throw ConfigError(source: source, problems: context.problems)
        }
        return config
    }

    /// Reads and decodes the file at `path`; the file's path is the ``ConfigError/source``.
    package static func load(path: String, environment: [String: String]) throws(ConfigError) -> GatewayConfig {
        let bytes: [UInt8]
        switch ConfigFile.read(path: path) {
        case .success(let contents): bytes = contents
        case .failure(let finding):
            let problem = ConfigProblem(path: "", message: finding.message, fix: finding.fix)
            throw ConfigError(source: path, problems: [problem])
        }
        return try decode(bytes, source: path, environment: environment)
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
