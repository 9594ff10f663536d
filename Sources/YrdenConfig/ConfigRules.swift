import YrdenProtocol

/// The naming and format rules a config must follow, as plain functions from a value to a ``Finding``.
///
/// The rules exist because of how values are used later: ids appear in URLs and admin API paths, prefixes in
/// tool names that hosts validate (`^[a-zA-Z0-9_-]{1,64}$`), URLs are dialled, header values
/// are written onto the wire. Checking them here turns a confusing failure at connect time into a clear one at
/// load time.
enum ConfigRules {
    static let maxNameLength = 63

    /// Server ids: `[a-z0-9][a-z0-9_-]{0,62}`, and free of the tool separator.
    static func checkServerID(_ id: String, separator: String) -> Finding? {
        if !isName(id) {
            return Finding(
                message: "server id \(id.quoted) is not valid",
                fix: "use 1 to 63 lowercase letters, digits, \"_\" or \"-\", starting with a letter or digit"
                    + " (for example \(suggestedName(for: id).quoted))"
            )
        }
        if id.contains(separator) {
            return Finding(
                message: "server id \(id.quoted) contains the tool separator \(separator.quoted)",
                fix: "tools are exposed as <prefix>\(separator)<tool> and the prefix defaults to the id, so the name"
                    + " could not be split back unambiguously; rename the server (for example"
                    + " \(id.replacing(separator, with: "-").quoted)) or choose another gateway.toolSeparator"
            )
        }
        return nil
    }

    /// Prefixes: as ids; also free of the tool separator.
    static func checkPrefix(_ prefix: String, separator: String) -> Finding? {
        if !isName(prefix) {
            return Finding(
                message: "prefix \(prefix.quoted) is not valid",
                fix: "use 1 to 63 lowercase letters, digits, \"_\" or \"-\", starting with a letter or digit"
                    + " (for example \(suggestedName(for: prefix).quoted)); hosts accept only these in tool names"
            )
        }
        if prefix.contains(separator) {
            return Finding(
                message: "prefix \(prefix.quoted) contains the tool separator \(separator.quoted)",
                fix: "tools are exposed as <prefix>\(separator)<tool>, so the name could not be split back"
                    + " unambiguously; choose a prefix without \(separator.quoted)"
            )
        }
        return nil
    }

    /// The tool separator: 1 to 8 of the characters every host accepts in tool names.
    static func checkSeparator(_ separator: String) -> Finding? {
        let allowed = separator.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
            default: false
            }
        }
        guard allowed, (1...8).contains(separator.count) else {
            return Finding(
                message: "tool separator \(separator.quoted) is not valid",
                fix: "use 1 to 8 of the characters hosts accept in tool names (A-Z a-z 0-9 _ -), such as \"__\""
            )
        }
        return nil
    }

    /// A tool's name as hosts see it: `^[a-zA-Z0-9_-]{1,64}$`.
    static func checkPublicName(_ name: String) -> Finding? {
        guard QualifiedName.isValid(name) else {
            return Finding(
                message: "tool name \(name.quoted) is not one hosts accept",
                fix:
                    "use 1 to 64 of A-Z a-z 0-9 _ - (for example \(QualifiedName.make(prefix: "", separator: "", name: name).quoted))"
            )
        }
        return nil
    }

    static func isName(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.first, scalars.count <= maxNameLength, isLowerAlphanumeric(first) else {
            return false
        }
        return scalars.allSatisfy { isLowerAlphanumeric($0) || $0 == "_" || $0 == "-" }
    }

    private static func isLowerAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// A valid id close to what the operator wrote: lowercased, other characters turned into `-`.
    static func suggestedName(for text: String) -> String {
        var result = ""
        for scalar in text.lowercased().unicodeScalars {
            if isLowerAlphanumeric(scalar) || scalar == "_" {
                result.unicodeScalars.append(scalar)
            } else if !result.isEmpty, !result.hasSuffix("-") {
                result += "-"
            }
        }
        while result.hasSuffix("-") { result.removeLast() }
        while let first = result.unicodeScalars.first, !isLowerAlphanumeric(first) { result.removeFirst() }
        let trimmed = String(result.prefix(maxNameLength))
        return trimmed.isEmpty ? "my-server" : trimmed
    }
}
