/// 2026-07-28's `Mcp-Param-{Name}` headers: the `tools/call` arguments a tool's input schema marks with
/// `x-mcp-header`, copied into HTTP headers so that intermediaries can route on them without the body.
///
/// An annotation is valid on a property reached from the schema's root through `properties` alone, whose
/// `type` is `string`, `integer` or `boolean`, naming a non-empty HTTP token unique without regard to case.
/// A tool with any other annotation is invalid as a whole (an HTTP client drops it).
package struct ParamHeaders: Sendable, Hashable {
    package struct Annotation: Sendable, Hashable {
        /// The header's name after `Mcp-Param-`.
        package var header: String
        /// The argument's path from `arguments`, one property name per level.
        package var path: [String]
        package var type: String
    }

    package let annotations: [Annotation]

    package static let prefix = "Mcp-Param-"
    package static let keyword = "x-mcp-header"
    /// Deeper schemas are not searched further for annotations: a nesting no tool has, and a bound on work.
    static let maxDepth = 32

    /// The annotations of `inputSchema`, or why one of them makes the tool invalid.
    package static func read(_ inputSchema: JSONValue?) -> Result<ParamHeaders, ParamHeaderProblem> {
        var found: [Annotation] = []
        if let problem = walk(inputSchema ?? .null, path: [], reachable: true, depth: 0, into: &found) {
            return .failure(problem)
        }
        var seen = Set<String>()
        for annotation in found where !seen.insert(annotation.header.lowercased()).inserted {
            return .failure(ParamHeaderProblem("\(keyword) \"\(annotation.header)\" is used twice"))
        }
        return .success(ParamHeaders(annotations: found))
    }

    package var isEmpty: Bool { annotations.isEmpty }

    /// The headers a request with `arguments` carries: one per annotated argument present and not null.
    package func headers(for arguments: JSONValue?) -> [(name: String, value: String)] {
        annotations.compactMap { annotation in
            Self.headerValue(Self.value(at: annotation.path, in: arguments)).map {
                (Self.prefix + annotation.header, $0)
            }
        }
    }

    /// Why the headers of a request with `arguments` do not match them (-32020's detail); `nil` when they do.
    /// `header` returns every value sent for a header name (matched without regard to case).
    package func mismatch(arguments: JSONValue?, header: (String) -> [String]) -> String? {
        for annotation in annotations {
            let name = Self.prefix + annotation.header
            let sent = header(name)
            let value = Self.value(at: annotation.path, in: arguments)
            guard let expected = value, expected != .null else {
                if !sent.isEmpty {
                    return "\(name) is sent, but arguments.\(annotation.path.joined(separator: ".")) is not"
                }
                continue
            }
            guard sent.count == 1, let decoded = MCPHeaderValue.decode(sent[0]) else {
                return sent.isEmpty ? "\(name) is missing" : "\(name) is repeated or not decodable"
            }
            guard Self.matches(decoded, expected) else {
                return "\(name) does not match arguments.\(annotation.path.joined(separator: "."))"
            }
        }
        return nil
    }

    private static func matches(_ decoded: String, _ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): decoded == text
        case .bool(let flag): decoded == (flag ? "true" : "false")
        case .int(let number): Int(decoded) == number
        case .double(let number): Double(decoded) == number
        default: false
        }
    }

    private static func headerValue(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: MCPHeaderValue.encode(text)
        case .bool(let flag)?: flag ? "true" : "false"
        case .int(let number)?: String(number)
        case .double(let number)? where number.rounded() == number && abs(number) < 1e15: String(Int(number))
        default: nil
        }
    }

    private static func value(at path: [String], in arguments: JSONValue?) -> JSONValue? {
        var current = arguments
        for key in path { current = current?[key] }
        return current
    }

    /// Subschemas an annotation may not be found in: under these keywords it is not on a property reached
    /// through `properties` alone.
    private static let nested = [
        "items", "prefixItems", "additionalProperties", "patternProperties", "anyOf", "oneOf", "allOf", "not",
        "if", "then", "else", "contains", "dependentSchemas", "$defs", "definitions", "unevaluatedProperties",
    ]

    private static func walk(
        _ schema: JSONValue,
        path: [String],
        reachable: Bool,
        depth: Int,
        into found: inout [Annotation]
    ) -> ParamHeaderProblem? {
        guard depth <= maxDepth else { return nil }
        switch schema {
        case .array(let items):
            for item in items {
                if let problem = walk(item, path: path, reachable: false, depth: depth + 1, into: &found) {
                    return problem
                }
            }
            return nil
        case .object(let object):
            if let annotation = object[keyword] {
                guard reachable, !path.isEmpty else {
                    return ParamHeaderProblem("\(keyword) is only allowed on a property reached through properties")
                }
                guard let header = annotation.stringValue, isToken(header) else {
                    return ParamHeaderProblem("\(keyword) of \(path.joined(separator: ".")) is not an HTTP token")
                }
                guard let type = object["type"]?.stringValue, ["string", "integer", "boolean"].contains(type) else {
                    return ParamHeaderProblem(
                        "\(keyword) of \(path.joined(separator: ".")) is on a property that is not a string, integer or boolean"
                    )
                }
                found.append(Annotation(header: header, path: path, type: type))
            }
            if let properties = object["properties"]?.objectValue {
                for (name, property) in properties {
                    if let problem = walk(
                        property,
                        path: path + [name],
                        reachable: reachable,
                        depth: depth + 1,
                        into: &found
                    ) {
                        return problem
                    }
                }
            }
            for key in nested {
                guard let sub = object[key] else { continue }
                let values: [JSONValue] =
                    key == "patternProperties" || key == "dependentSchemas" || key == "$defs" || key == "definitions"
                    ? (sub.objectValue?.map(\.value) ?? []) : [sub]
                for value in values {
                    if let problem = walk(value, path: path, reachable: false, depth: depth + 1, into: &found) {
                        return problem
                    }
                }
            }
            return nil
        default:
            return nil
        }
    }

    /// RFC 9110 `token`: one or more of ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
    }
}

/// Why a tool's `x-mcp-header` annotations make it invalid.
package struct ParamHeaderProblem: Error, Sendable, Hashable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) { self.description = description }
}
