/// MCP's log levels (RFC 5424's severities), least severe first: a client that asks for one gets it and
/// everything more severe.
package enum LoggingLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    case debug, info, notice, warning, error, critical, alert, emergency

    package static func < (lhs: LoggingLevel, rhs: LoggingLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The level named by `value`; -32602 naming the levels for anything else.
    package init(validating value: JSONValue?) throws(JSONRPCError) {
        guard let text = value?.stringValue, let level = LoggingLevel(rawValue: text) else {
            let names = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidParams("the log level must be one of \(names)")
        }
        self = level
    }
}
