import YrdenProtocol

/// An RFC 9457 problem document as lines for a person: its `detail`, then each field problem as
/// `path: message — fix`. A body that is not a problem document is reported by its status and first line.
struct ProblemReport {
    var lines: [String]
    /// Whether the body was a JSON object (the admin API's answer) rather than some other server's page.
    var isProblemDocument: Bool

    init(status: Int, body: [UInt8]) {
        guard let problem = try? JSONValue.parse(body), problem.objectValue != nil else {
            lines = [Self.plainLine(status: status, body: body)]
            isProblemDocument = false
            return
        }
        isProblemDocument = true
        let detail = problem["detail"]?.stringValue ?? problem["title"]?.stringValue ?? "HTTP \(status)"
        lines = [detail]
        for item in problem["errors"]?.arrayValue ?? [] {
            lines.append("  " + Self.fieldLine(item))
        }
    }

    private static func fieldLine(_ item: JSONValue) -> String {
        let path = item["path"]?.stringValue ?? ""
        let message = item["message"]?.stringValue ?? ""
        var line = path.isEmpty ? message : "\(path): \(message)"
        if let fix = item["fix"]?.stringValue, !fix.isEmpty { line += " — \(fix)" }
        return line
    }

    private static func plainLine(status: Int, body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(300), as: UTF8.self)
        let first = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        let trimmed = first.trimmingPrefix(while: \.isWhitespace)
        return trimmed.isEmpty
            ? "the gateway answered HTTP \(status)" : "the gateway answered HTTP \(status): \(trimmed)"
    }
}
