/// The media types the Streamable HTTP transport requires on `/mcp`, checked before any work is done.
///
/// A POST carries JSON (else 415) and must accept both answers the endpoint may give, JSON and an SSE stream
/// (else 406); a GET must accept the SSE stream. Wildcards count as RFC 9110 §12.5.1 says, a zero quality
/// excludes a type, and a missing `Accept` accepts nothing the transport needs, as in the official SDKs.
enum MediaTypeRules {
    static let json = "application/json"
    static let eventStream = "text/event-stream"

    /// Whether a POST's `Accept` lets the endpoint answer with JSON and with an SSE stream.
    static func acceptsPostAnswers(_ accept: String?) -> Bool {
        guard let accept else { return false }
        return postAnswers.verdict(for: accept) { accept in
            let ranges = acceptedRanges(accept)
            return covers(ranges, json) && covers(ranges, eventStream)
        }
    }

    /// Verdicts on the `Accept` values of POSTs, which a client repeats on every call.
    private static let postAnswers = VerdictMemo()

    /// Whether a GET's `Accept` lets the endpoint answer with an SSE stream.
    static func acceptsStream(_ accept: String?) -> Bool {
        covers(acceptedRanges(accept), eventStream)
    }

    /// Whether a `Content-Type` names JSON; parameters such as `charset` are allowed.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        // What nearly every client sends, checked before taking the value apart.
        return contentType == json || essence(contentType) == json
    }

    /// The media ranges of an `Accept` value, lowercased, without those of quality zero.
    private static func acceptedRanges(_ accept: String?) -> [String] {
        guard let accept else { return [] }
        return accept.split(separator: ",").compactMap { item in
            let parts = item.split(separator: ";").map { $0.trimmingSpaces.lowercased() }
            guard let range = parts.first, !range.isEmpty else { return nil }
            let excluded = parts.dropFirst().contains { parameter in
                guard parameter.hasPrefix("q=") else { return false }
                return Double(parameter.dropFirst(2)) == 0
            }
            return excluded ? nil : range
        }
    }

    /// Whether one of `ranges` matches `type`: the type itself, `major/*`, or `*/*`.
    private static func covers(_ ranges: [String], _ type: String) -> Bool {
        let major = type.split(separator: "/").first.map(String.init) ?? type
        return ranges.contains { $0 == type || $0 == "\(major)/*" || $0 == "*/*" }
    }

    private static func essence(_ mediaType: String) -> String {
        (mediaType.split(separator: ";").first.map { $0.trimmingSpaces } ?? "").lowercased()
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
