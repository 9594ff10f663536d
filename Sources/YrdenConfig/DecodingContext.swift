/// What one decoding run shares: the environment that `${VAR}` expands from and the problems found so far.
///
/// A class so that every reader handed down the tree appends to the same list; a run is local to one call of
/// ``ConfigLoader/decode(_:source:environment:)`` and never crosses a concurrency boundary.
///
/// Inside one server entry, a `${...}` reference that cannot be resolved where the gateway runs (an unset
/// variable, a host's input prompt) is collected as an ``UnresolvedReference`` instead of reported: that server
/// is kept and shown as failed, the rest of the file still loads. What the value would have been is unknown, so
/// any other judgement of that same value is dropped too (a URL whose host is `${HOST}` cannot be checked).
/// Host keys that the gateway ignores or maps are collected as notices.
final class DecodingContext {
    let environment: [String: String]
    private(set) var problems: [ConfigProblem] = []
    /// Things the operator should know that do not stop the file from loading (a host key that is ignored).
    private(set) var notices: [ConfigProblem] = []
    /// The unresolved references of the server entry being decoded; `nil` outside a server entry, where such
    /// a reference is a problem like any other.
    private var unresolved: [UnresolvedReference]?

    init(environment: [String: String]) {
        self.environment = environment
    }

    func report(_ path: JSONPath, _ message: String, fix: String) {
        report(ConfigProblem(path: path.description, message: message, fix: fix))
    }

    func report(_ problem: ConfigProblem) {
        if let unresolved, unresolved.contains(where: { $0.path == problem.path }) { return }
        problems.append(problem)
    }

    func notice(_ path: JSONPath, _ message: String, fix: String) {
        notices.append(ConfigProblem(path: path.description, message: message, fix: fix))
    }

    /// Decodes one server entry with unresolved references collected rather than reported; returns them.
    func collectingUnresolved<Result>(_ body: () -> Result) -> (Result, [UnresolvedReference]) {
        unresolved = []
        defer { unresolved = nil }
        let result = body()
        return (result, unresolved ?? [])
    }

    /// Records `findings` (all of them unresolved references) at `path`; `false` outside a server entry, where
    /// the caller reports them instead.
    func deferUnresolved(_ findings: [Finding], at path: JSONPath) -> Bool {
        guard unresolved != nil else { return false }
        for finding in findings {
            unresolved?.append(
                UnresolvedReference(path: path.description, message: finding.message, fix: finding.fix)
            )
        }
        return true
    }

    /// Whether a problem was already reported at `path` or below it, so later checks can stay quiet about
    /// values that are already known to be wrong.
    func hasProblem(at path: String) -> Bool {
        problems.contains { $0.path == path || $0.path.hasPrefix(path + ".") || $0.path.hasPrefix(path + "[") }
    }
}

@available(*, unavailable)
extension DecodingContext: Sendable {}
