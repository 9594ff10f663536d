import YrdenProtocol

/// What one upstream offers, exactly as it listed it (all pages), before any renaming.
package struct ServerCatalog: Sendable, Hashable {
    package var tools: [JSONObject] = []
    package var prompts: [JSONObject] = []
    package var resources: [JSONObject] = []
    package var resourceTemplates: [JSONObject] = []

    package init(
        tools: [JSONObject] = [],
        prompts: [JSONObject] = [],
        resources: [JSONObject] = [],
        resourceTemplates: [JSONObject] = []
    ) {
        self.tools = tools
        self.prompts = prompts
        self.resources = resources
        self.resourceTemplates = resourceTemplates
    }

    /// The list kinds, each with its method, the key its result uses, and the capability that gates it.
    package enum Kind: CaseIterable, Sendable {
        case tools, prompts, resources, resourceTemplates

        package var method: String {
            switch self {
            case .tools: MCPMethod.toolsList
            case .prompts: MCPMethod.promptsList
            case .resources: MCPMethod.resourcesList
            case .resourceTemplates: MCPMethod.resourceTemplatesList
            }
        }

        /// The kind a `*/list` method lists, or `nil` for any other method.
        package init?(listMethod: String) {
            guard let kind = Self.allCases.first(where: { $0.method == listMethod }) else { return nil }
            self = kind
        }

        package var resultKey: String {
            switch self {
            case .tools: "tools"
            case .prompts: "prompts"
            case .resources: "resources"
            case .resourceTemplates: "resourceTemplates"
            }
        }

        package var capability: String {
            switch self {
            case .tools: "tools"
            case .prompts: "prompts"
            case .resources, .resourceTemplates: "resources"
            }
        }

        package var listChangedNotification: String {
            switch self {
            case .tools: MCPMethod.toolsListChanged
            case .prompts: MCPMethod.promptsListChanged
            case .resources, .resourceTemplates: MCPMethod.resourcesListChanged
            }
        }
    }

    package subscript(kind: Kind) -> [JSONObject] {
        get {
            switch kind {
            case .tools: tools
            case .prompts: prompts
            case .resources: resources
            case .resourceTemplates: resourceTemplates
            }
        }
        set {
            switch kind {
            case .tools: tools = newValue
            case .prompts: prompts = newValue
            case .resources: resources = newValue
            case .resourceTemplates: resourceTemplates = newValue
            }
        }
    }
}
