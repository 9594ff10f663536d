import YrdenProtocol

/// What differs between two definitions of one tool, worded for an operator deciding whether to approve:
/// which fields changed, the texts before and after, and the JSON paths that changed inside the schemas
/// and annotations.
package struct ToolDefinitionDiff: Sendable, Hashable {
    /// A text field's value before and after; `nil` where the field is absent.
    package struct TextChange: Sendable, Hashable {
        package var before: String?
        package var after: String?
    }

    /// One place inside a schema or the annotations, as `inputSchema.properties.city.type`.
    package struct PathChange: Sendable, Hashable {
        package enum Kind: String, Sendable {
            case added, removed, changed
        }

        package var path: String
        package var kind: Kind
    }

    /// The fields that differ, in ``ToolDefinition/pinnedFields`` order.
    package private(set) var fields: [String] = []
    /// `title` and `description`, when they differ.
    package private(set) var texts: [String: TextChange] = [:]
    /// The places that differ in the structured fields, at most ``maxPaths``.
    package private(set) var paths: [PathChange] = []
    /// How many more places differ than ``paths`` lists.
    package private(set) var morePaths = 0

    /// A schema rewritten from end to end would otherwise make a log line of thousands of paths.
    static let maxPaths = 20
    static let textFields: Set<String> = ["title", "description"]
    /// How much of each text a log line quotes.
    static let quotedLength = 300

    package init(from old: ToolDefinition, to new: ToolDefinition) {
        // A definition kept in the pin file is read once here, not once for each field.
        let old = old.loaded()
        let new = new.loaded()
        for field in ToolDefinition.pinnedFields {
            let before = old[field]
            let after = new[field]
            guard before != after else { continue }
            fields.append(field)
            if Self.textFields.contains(field) {
                texts[field] = TextChange(before: before?.stringValue, after: after?.stringValue)
            } else {
                compare(before, after, at: field)
            }
        }
    }

    private mutating func compare(_ before: JSONValue?, _ after: JSONValue?, at path: String) {
        switch (before, after) {
        case (.none, .none):
            return
        case (.none, _):
            record(path, .added)
        case (_, .none):
            record(path, .removed)
        case (.object(let old)?, .object(let new)?):
            let keys = Set(old.map(\.key)).union(new.map(\.key)).sorted()
            for key in keys where old[key] != new[key] {
                compare(old[key], new[key], at: Self.appending(key, to: path))
            }
        case (.array(let old)?, .array(let new)?):
            for index in 0..<max(old.count, new.count) {
                // `.none` spelled out: a bare `nil` here would be read as JSON `null`.
                let before: JSONValue? = index < old.count ? .some(old[index]) : .none
                let after: JSONValue? = index < new.count ? .some(new[index]) : .none
                if before != after { compare(before, after, at: "\(path)[\(index)]") }
            }
        default:
            record(path, .changed)
        }
    }

    private mutating func record(_ path: String, _ kind: PathChange.Kind) {
        if paths.count < Self.maxPaths {
            paths.append(PathChange(path: path, kind: kind))
        } else {
            morePaths += 1
        }
    }

    /// `path.key`, or `path["key"]` for a key that is not a plain name.
    private static func appending(_ key: String, to path: String) -> String {
        let plain =
            key.first.map { $0.isLetter || $0 == "_" } == true
            && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "$" }
        return plain ? "\(path).\(key)" : "\(path)[\(JSONValue.string(key).jsonText)]"
    }

    /// One line for the log: each text before and after (quoted, cut at ``quotedLength``), then the places.
    package var summary: String {
        var parts: [String] = []
        for field in fields {
            if let text = texts[field] {
                parts.append("\(field): \(Self.quoted(text.before)) → \(Self.quoted(text.after))")
            }
        }
        var places = paths.map { "\($0.path) (\($0.kind.rawValue))" }
        if morePaths > 0 { places.append("and \(morePaths) more") }
        if !places.isEmpty { parts.append(places.joined(separator: ", ")) }
        return parts.isEmpty ? "no difference" : parts.joined(separator: "; ")
    }

    private static func quoted(_ text: String?) -> String {
        guard let text else { return "(none)" }
        let cut = text.count > quotedLength ? String(text.prefix(quotedLength)) + "…" : text
        return JSONValue.string(cut).jsonText
    }

    /// `{fields, texts: {description: {before, after}}, paths: [{path, change}], morePaths}`.
    package var json: JSONValue {
        var textObject = JSONObject()
        for field in fields {
            guard let text = texts[field] else { continue }
            textObject[field] = [
                "before": text.before.map(JSONValue.string) ?? .null,
                "after": text.after.map(JSONValue.string) ?? .null,
            ]
        }
        return [
            "fields": .array(fields.map(JSONValue.string)),
            "texts": .object(textObject),
            "paths": .array(paths.map { ["path": .string($0.path), "change": .string($0.kind.rawValue)] }),
            "morePaths": .int(morePaths),
        ]
    }
}
