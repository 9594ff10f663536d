/// One thing wrong with a configuration, said so that an operator can act on it without reading code.
///
/// Every problem names where it is (a JSON path such as `mcpServers.time.args[1]`, or `""` for the file as a
/// whole), what is wrong, and what to do about it. The decoder collects all of them instead of stopping at the
/// first, so one run of `yrden check-config` shows everything that needs fixing.
package struct ConfigProblem: Sendable, Hashable, CustomStringConvertible {
    /// Dotted JSON path with indices (`gateway.listen`, `mcpServers.time.args[1]`); `""` for the whole file.
    package var path: String
    /// What is wrong, quoting the offending value where that helps.
    package var message: String
    /// What to change to make it right.
    package var fix: String

    package init(path: String, message: String, fix: String) {
        self.path = path
        self.message = message
        self.fix = fix
    }

    /// `<path>: <message> — <fix>`, leaving out the path when the problem concerns the whole file.
    package var description: String {
        path.isEmpty ? "\(message) — \(fix)" : "\(path): \(message) — \(fix)"
    }
}

/// A configuration that cannot be used, with every problem found in it.
///
/// Thrown as a whole rather than problem by problem because the useful report is the complete list: fixing one
/// field at a time and rerunning is the experience strict decoders usually give, and the one this one avoids.
package struct ConfigError: Error, Sendable, CustomStringConvertible {
    /// Where the configuration came from: a file path, or a name such as `"embedded default"`.
    package var source: String
    /// Never empty when thrown by ``ConfigLoader``.
    package var problems: [ConfigProblem]

    package init(source: String, problems: [ConfigProblem]) {
        self.source = source
        self.problems = problems
    }

    /// One line per problem: `<source>: <path>: <message> — <fix>` (the path left out when it is empty).
    package var description: String {
        problems.map { "\(source): \($0)" }.joined(separator: "\n")
    }
}
