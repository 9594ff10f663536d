import YrdenProtocol

/// What one upstream offers, exactly as it listed it (all pages), before any renaming.
///
/// Each item's digest is computed when a list is set, which happens where the list was loaded, not under
/// the gateway's lock: the aggregate then tells whether a list changed by comparing digests, however large
/// the items (a schema of megabytes), instead of comparing the items themselves.
package struct ServerCatalog: Sendable, Hashable {
    package var tools: [JSONObject] = [] {
        didSet {
            toolDigests = Self.digests(tools)
            paramHeaders = Self.paramHeaders(tools)
            toolNames = Self.names(tools)
        }
    }
    package var prompts: [JSONObject] = [] {
        didSet {
            promptDigests = Self.digests(prompts)
            promptNames = Self.names(prompts)
        }
    }
    package var resources: [JSONObject] = [] { didSet { resourceDigests = Self.digests(resources) } }
    package var resourceTemplates: [JSONObject] = [] {
        didSet { resourceTemplateDigests = Self.digests(resourceTemplates) }
    }
    private var toolDigests: [Int] = []
    private var promptDigests: [Int] = []
    private var resourceDigests: [Int] = []
    private var resourceTemplateDigests: [Int] = []
    /// The valid `x-mcp-header` annotations of the tools that have some, by tool name: read once per list,
    /// so a call looks them up instead of walking a schema.
    package private(set) var paramHeaders: [String: ParamHeaders] = [:]
    /// The tools' and prompts' names, so a client of this server alone is routed without walking the lists.
    package private(set) var toolNames: Set<String> = []
    package private(set) var promptNames: Set<String> = []
    /// What a 2026-07-28 server said of each list's freshness (`ttlMs`, `cacheScope`); none for a handshake-era
    /// server, whose lists carry no hint.
    package var cacheHints: [Kind: CacheHint] = [:]

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
        toolDigests = Self.digests(tools)
        paramHeaders = Self.paramHeaders(tools)
        toolNames = Self.names(tools)
        promptDigests = Self.digests(prompts)
        promptNames = Self.names(prompts)
        resourceDigests = Self.digests(resources)
        resourceTemplateDigests = Self.digests(resourceTemplates)
    }

    /// One hash per item, in list order (hash values are seeded per process, so they are compared only
    /// within one run).
    private static func digests(_ items: [JSONObject]) -> [Int] { items.map(\.hashValue) }

    private static func names(_ items: [JSONObject]) -> Set<String> {
        Set(items.compactMap { $0["name"]?.stringValue })
    }

    private static func paramHeaders(_ tools: [JSONObject]) -> [String: ParamHeaders] {
        var annotated: [String: ParamHeaders] = [:]
        for tool in tools {
            guard let name = tool["name"]?.stringValue,
                case .success(let headers) = ParamHeaders.read(tool["inputSchema"]),
                !headers.isEmpty
            else { continue }
            annotated[name] = headers
        }
        return annotated
    }

    /// The digests of one kind's items, parallel to `self[kind]`.
    package func digests(_ kind: Kind) -> [Int] {
        switch kind {
        case .tools: toolDigests
        case .prompts: promptDigests
        case .resources: resourceDigests
        case .resourceTemplates: resourceTemplateDigests
        }
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
