import YrdenProtocol

extension DemoServerCore {
    /// `tools/call`. Unknown tools and bad arguments are protocol errors (-32602); `fail` is an execution
    /// error, reported inside a normal result.
    func callTool(_ request: JSONRPCRequest) throws(JSONRPCError) -> Answer {
        guard let name = request.params?["name"]?.stringValue else {
            throw .invalidParams("tools/call needs params.name (a string)")
        }
        let arguments = try Arguments(request.params?["arguments"], owner: "tool '\(name)'")
        switch name {
        case "echo": return .result(try echo(arguments))
        case "add": return .result(try add(arguments))
        case "slow": return try startSlowCall(request, arguments)
        case "show_dashboard": return .result(Self.dashboardResult)
        case "fail": return .result(try fail(arguments))
        default: throw .invalidParams("Unknown tool: \(name)")
        }
    }

    static func textContent(_ text: String) -> JSONValue {
        [["type": "text", "text": .string(text)]]
    }

    private func echo(_ arguments: Arguments) throws(JSONRPCError) -> JSONValue {
        let message = JSONValue.string(try arguments.requiredString("message"))
        return ["content": [["type": "text", "text": message]], "structuredContent": ["message": message]]
    }

    private func add(_ arguments: Arguments) throws(JSONRPCError) -> JSONValue {
        let sum = Self.sum(try arguments.requiredNumber("a"), try arguments.requiredNumber("b"))
        let text: String
        switch sum {
        case .int(let value): text = String(value)
        default: text = sum.doubleValue.map { String($0) } ?? "null"
        }
        return ["content": Self.textContent(text), "structuredContent": ["sum": sum]]
    }

    /// Integers add exactly; anything else, or an integer sum that overflows, adds as doubles.
    static func sum(_ a: JSONValue, _ b: JSONValue) -> JSONValue {
        if case .int(let x) = a, case .int(let y) = b {
            let (exact, overflow) = x.addingReportingOverflow(y)
            if !overflow { return .int(exact) }
        }
        return .double((a.doubleValue ?? 0) + (b.doubleValue ?? 0))
    }

    static let dashboardResult: JSONValue = [
        "content": textContent("Dashboard: 42 visits, status ok."),
        "structuredContent": ["visits": 42, "status": "ok"],
    ]

    private func fail(_ arguments: Arguments) throws(JSONRPCError) -> JSONValue {
        let message = try arguments.string("message") ?? "The fail tool failed, as it always does."
        return ["content": Self.textContent(message), "isError": true]
    }
}
