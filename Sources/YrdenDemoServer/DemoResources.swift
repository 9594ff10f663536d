import YrdenProtocol

/// The demo's resources: two fixed `demo://` documents, the MCP Apps page and a greeting template.
enum DemoResources {
    static let readmeURI = "demo://readme"
    static let statusURI = "demo://status"
    static let greetingPrefix = "demo://greeting/"
    static let appMimeType = "text/html;profile=mcp-app"

    /// The page's security metadata: no outside origins at all (an empty CSP), and a border around the view.
    static let dashboardUIMeta: JSONValue = ["ui": ["csp": [:], "prefersBorder": true]]

    static let listResult: JSONValue = [
        "resources": [
            [
                "uri": .string(readmeURI), "name": "readme", "title": "About the demo server",
                "description": "What this server offers.", "mimeType": "text/markdown",
            ],
            [
                "uri": .string(statusURI), "name": "status", "title": "Demo server status",
                "description": "A small JSON status document.", "mimeType": "application/json",
            ],
            [
                "uri": .string(DemoTools.dashboardURI), "name": "dashboard", "title": "Dashboard view",
                "description": "The MCP Apps view of the show_dashboard tool.", "mimeType": .string(appMimeType),
                "_meta": dashboardUIMeta,
            ],
        ]
    ]

    static let templatesListResult: JSONValue = [
        "resourceTemplates": [
            [
                "uriTemplate": "demo://greeting/{name}", "name": "greeting", "title": "Greeting",
                "description": "A greeting for the given name.", "mimeType": "text/plain",
            ]
        ]
    ]

    static let readme = """
        # Yrden demo server

        A small MCP server built into the `yrden` binary (`yrden demo-server`), speaking stdio.

        - Tools: `echo`, `add`, `slow` (progress and cancellation), `show_dashboard` (an MCP Apps view) and \
        `fail` (an execution error).
        - Resources: this readme, `demo://status`, the `ui://demo/dashboard` page and the \
        `demo://greeting/{name}` template.
        - Prompts: `greet` and `review_code`.

        """

    /// `demo://greeting/Ada%20Lovelace` → "Ada Lovelace"; `nil` unless the name is one non-empty path segment.
    static func greetingName(_ uri: String) -> String? {
        guard uri.hasPrefix(greetingPrefix) else { return nil }
        let raw = uri.utf8.dropFirst(greetingPrefix.utf8.count)
        guard !raw.isEmpty, !raw.contains(UInt8(ascii: "/")), !raw.contains(UInt8(ascii: "?")),
            !raw.contains(UInt8(ascii: "#"))
        else { return nil }
        return PercentDecoding.decode(raw)
    }

}

extension DemoServerCore {
    /// `resources/read`: unknown URIs are -32002 with `data.uri`.
    func readResource(_ params: JSONValue?) throws(JSONRPCError) -> JSONValue {
        guard let uri = params?["uri"]?.stringValue else {
            throw .invalidParams("resources/read needs params.uri (a string)")
        }
        let content: JSONValue
        switch uri {
        case DemoResources.readmeURI:
            content = ["uri": .string(uri), "mimeType": "text/markdown", "text": .string(DemoResources.readme)]
        case DemoResources.statusURI:
            let status: JSONValue = [
                "status": "ok", "server": .string(Self.serverName), "version": .string(Self.serverVersion),
                "runningSlowCalls": .int(slowCalls.count),
            ]
            content = ["uri": .string(uri), "mimeType": "application/json", "text": .string(status.jsonText)]
        case DemoTools.dashboardURI:
            content = [
                "uri": .string(uri), "mimeType": .string(DemoResources.appMimeType),
                "text": .string(DashboardPage.html), "_meta": DemoResources.dashboardUIMeta,
            ]
        default:
            guard let name = DemoResources.greetingName(uri) else { throw .resourceNotFound(uri) }
            content = ["uri": .string(uri), "mimeType": "text/plain", "text": .string("Hello, \(name)!")]
        }
        return ["contents": [content]]
    }
}
