import YrdenProtocol

/// The demo's tool definitions, as `tools/list` returns them. Built once: listing is a copy, not a rebuild.
enum DemoTools {
    static let dashboardURI = "ui://demo/dashboard"

    static let listResult: JSONValue = ["tools": [echo, add, slow, showDashboard, fail]]

    private static let readOnlyLocal: JSONValue = [
        "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false,
    ]

    private static func objectSchema(_ properties: JSONObject, required: [String]) -> JSONValue {
        ["type": "object", "properties": .object(properties), "required": .array(required.map(JSONValue.string))]
    }

    private static let echo: JSONValue = [
        "name": "echo",
        "title": "Echo",
        "description": "Returns the given message unchanged.",
        "inputSchema": objectSchema(
            ["message": ["type": "string", "description": "The message to send back."]],
            required: ["message"]
        ),
        "outputSchema": objectSchema(["message": ["type": "string"]], required: ["message"]),
        "annotations": readOnlyLocal,
    ]

    private static let add: JSONValue = [
        "name": "add",
        "title": "Add two numbers",
        "description": "Adds a and b and returns the sum.",
        "inputSchema": objectSchema(
            [
                "a": ["type": "number", "description": "First addend."],
                "b": ["type": "number", "description": "Second addend."],
            ],
            required: ["a", "b"]
        ),
        "outputSchema": objectSchema(["sum": ["type": "number"]], required: ["sum"]),
        "annotations": readOnlyLocal,
    ]

    private static let slow: JSONValue = [
        "name": "slow",
        "title": "Slow operation",
        "description": """
        Waits for the given number of seconds, reporting progress in steps when the request carries a \
        progress token. Can be cancelled with notifications/cancelled.
        """,
        "inputSchema": objectSchema(
            [
                "seconds": [
                    "type": "number", "minimum": 0, "maximum": .int(SlowCall.maxSeconds), "default": 3,
                    "description": "How long to run.",
                ],
                "steps": [
                    "type": "integer", "minimum": 1, "maximum": .int(SlowCall.maxSteps), "default": 10,
                    "description": "How many progress notifications to send.",
                ],
            ],
            required: []
        ),
        "annotations": readOnlyLocal,
    ]

    private static let showDashboard: JSONValue = [
        "name": "show_dashboard",
        "title": "Show dashboard",
        "description": "Shows a small dashboard; hosts with MCP Apps support render it as an interactive view.",
        "inputSchema": objectSchema([:], required: []),
        "outputSchema": objectSchema(
            ["visits": ["type": "integer"], "status": ["type": "string"]],
            required: ["visits", "status"]
        ),
        "annotations": readOnlyLocal,
        // Both forms of the UI link, equal: the nested one is current, the flat one is deprecated but still read.
        "_meta": ["ui": ["resourceUri": .string(dashboardURI)], "ui/resourceUri": .string(dashboardURI)],
    ]

    private static let fail: JSONValue = [
        "name": "fail",
        "title": "Always fail",
        "description": "Always fails with a tool execution error (isError: true), for testing error paths.",
        "inputSchema": objectSchema(
            ["message": ["type": "string", "description": "The error text to report."]],
            required: []
        ),
        "annotations": readOnlyLocal,
    ]
}
