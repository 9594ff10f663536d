/// One upstream tool as the search index sees it: what an agent could match a need against.
///
/// Only text is kept from the tool's definition: its name, title, description and the names (and, when given,
/// descriptions) of its input schema's top-level properties. The index truncates every field on the way in
/// (``SearchLimits``), so a tool may carry text of any length here.
package struct SearchableTool: Sendable, Hashable {
    /// The upstream server's name in the gateway's configuration.
    package var server: String
    /// The tool's name as its upstream lists it (not the gateway's qualified name).
    package var name: String
    package var title: String?
    package var description: String?
    /// The input schema's top-level property names, in the schema's order.
    package var argumentNames: [String]
    /// Descriptions of those properties, by property name; a property without one is simply absent.
    package var argumentDescriptions: [String: String]

    package init(
        server: String,
        name: String,
        title: String? = nil,
        description: String? = nil,
        argumentNames: [String] = [],
        argumentDescriptions: [String: String] = [:]
    ) {
        self.server = server
        self.name = name
        self.title = title
        self.description = description
        self.argumentNames = argumentNames
        self.argumentDescriptions = argumentDescriptions
    }

    package var key: ToolKey { ToolKey(server: server, name: name) }
}

/// Which tool a hit is: the server and the upstream's own tool name, enough to route a call.
package struct ToolKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var server: String
    package var name: String

    package init(server: String, name: String) {
        self.server = server
        self.name = name
    }

    /// Server first, then name: the order that breaks ties between equal scores, the same on every run.
    package static func < (lhs: ToolKey, rhs: ToolKey) -> Bool {
        lhs.server != rhs.server ? lhs.server < rhs.server : lhs.name < rhs.name
    }

    package var description: String { "\(server)/\(name)" }
}

/// One result of a search: the tool and how well it matched (higher is better; only comparable within one search).
package struct SearchHit: Sendable, Hashable {
    package var key: ToolKey
    package var score: Double

    package init(key: ToolKey, score: Double) {
        self.key = key
        self.score = score
    }
}
