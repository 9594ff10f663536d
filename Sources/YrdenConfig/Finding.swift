/// A rule's verdict on one value, before it is placed at a path: what is wrong and how to fix it.
///
/// Rules return findings instead of reporting them so they stay plain functions that tests can call directly
/// and that the decoder can attach to whichever path the value came from.
struct Finding: Error, Hashable, Sendable {
    var message: String
    var fix: String
    /// Set when the finding is a `${...}` reference that cannot be resolved where the gateway runs (an unset
    /// variable, a host's input prompt), rather than a mistake in the text: a server entry with only such
    /// findings is kept, shown as failed, instead of failing the whole file.
    var unresolvedReference: String? = nil
}

extension JSONReader {
    func report(_ finding: Finding) {
        report(finding.message, fix: finding.fix)
    }
}
