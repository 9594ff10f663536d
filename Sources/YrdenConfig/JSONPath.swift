import YrdenProtocol

/// Where a value sits in the configuration document, rendered the way operators write it: `mcpServers.time.args[1]`.
///
/// Keys that are not plain identifiers (a server id with a space, say) are written as quoted subscripts,
/// `mcpServers["my server"]`, so that the path still points at exactly one place.
struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    private(set) var components: [Component] = []

    static let root = JSONPath()

    func appending(key: String) -> JSONPath {
        var copy = self
        copy.components.append(.key(key))
        return copy
    }

    func appending(index: Int) -> JSONPath {
        var copy = self
        copy.components.append(.index(index))
        return copy
    }

    var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key) where Self.isPlain(key):
                text += text.isEmpty ? key : "." + key
            case .key(let key):
                text += "[" + JSONValue.string(key).jsonText + "]"
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    private static func isPlain(_ key: String) -> Bool {
        !key.isEmpty
            && key.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_", "-", "$": true
                default: false
                }
            }
    }
}
