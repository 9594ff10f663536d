import YrdenControl
import YrdenEngine
import YrdenHTTPServer

/// `If-Match` (RFC 9110 §13.1.1) on the admin API's writes: what version of the config or entry the client
/// read before changing it, so a read-modify-write client never overwrites a change it has not seen.
enum AdminPrecondition {
    /// The versions the request's `If-Match` headers accept: `.any` without one, with `*` or with no tag,
    /// else the tags listed. A weak tag (`W/"…"`) is kept as written, so it never matches: `If-Match` compares strongly.
    static func expected(by request: HTTPRequest) -> ExpectedVersion {
        let fields = request.headers.values(for: "If-Match")
        guard !fields.isEmpty else { return .any }
        var tags: [String] = []
        for field in fields {
            for member in field.split(separator: ",") {
                let tag = member.trimmingWhitespace()
                if tag == "*" { return .any }
                if !tag.isEmpty { tags.append(tag) }
            }
        }
        // A header with no tag at all names no version; it is read as no condition rather than as one
        // that nothing can meet.
        return tags.isEmpty ? .any : .oneOf(tags)
    }
}
