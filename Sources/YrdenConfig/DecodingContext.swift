/// What one decoding run shares: the environment that `${VAR}` expands from and the problems found so far.
///
/// A class so that every reader handed down the tree appends to the same list; a run is local to one call of
/// ``ConfigLoader/decode(_:source:environment:)`` and never crosses a concurrency boundary.
final class DecodingContext {
    let environment: [String: String]
    private(set) var problems: [ConfigProblem] = []

    init(environment: [String: String]) {
        self.environment = environment
    }

    func report(_ path: JSONPath, _ message: String, fix: String) {
        problems.append(ConfigProblem(path: path.description, message: message, fix: fix))
    }

    func report(_ problem: ConfigProblem) {
        problems.append(problem)
    }

    /// Whether a problem was already reported at `path` or below it, so later checks can stay quiet about
    /// values that are already known to be wrong.
    func hasProblem(at path: String) -> Bool {
        problems.contains { $0.path == path || $0.path.hasPrefix(path + ".") || $0.path.hasPrefix(path + "[") }
    }
}

@available(*, unavailable)
extension DecodingContext: Sendable {}
