import YrdenProtocol

/// The demo's prompts: `greet` and `review_code`, each giving one user message.
enum DemoPrompts {
    static let listResult: JSONValue = [
        "prompts": [
            [
                "name": "greet", "title": "Greet someone",
                "description": "Asks the model to greet a person, formally or casually.",
                "arguments": [
                    ["name": "name", "description": "Who to greet.", "required": true],
                    ["name": "style", "description": "\"formal\" or \"casual\".", "required": false],
                ],
            ],
            [
                "name": "review_code", "title": "Review code",
                "description": "Asks the model to review a piece of code.",
                "arguments": [
                    ["name": "code", "description": "The code to review.", "required": true],
                    ["name": "language", "description": "The programming language, if known.", "required": false],
                ],
            ],
        ]
    ]

    /// `prompts/get`: an unknown prompt, a missing required argument or a bad style are -32602.
    static func get(_ params: JSONValue?) throws(JSONRPCError) -> JSONValue {
        guard let name = params?["name"]?.stringValue else {
            throw .invalidParams("prompts/get needs params.name (a string)")
        }
        let arguments = try Arguments(params?["arguments"], owner: "prompt '\(name)'")
        switch name {
        case "greet":
            let person = try arguments.requiredString("name")
            let text: String
            switch try arguments.string("style") {
            case nil: text = "Please greet \(person)."
            case "formal"?: text = "Please write a formal greeting for \(person)."
            case "casual"?: text = "Please write a casual, friendly greeting for \(person)."
            case let other?:
                throw .invalidParams(
                    "Argument 'style' of prompt 'greet' must be \"formal\" or \"casual\", not \"\(other)\""
                )
            }
            return result(description: "A greeting for \(person)", text: text)
        case "review_code":
            let code = try arguments.requiredString("code")
            let language = try arguments.string("language")
            let what = language.map { "this \($0) code" } ?? "this code"
            let text = "Please review \(what) for bugs and readability:\n\n```\(language ?? "")\n\(code)\n```"
            return result(description: "A code review request", text: text)
        default:
            throw .invalidParams("Unknown prompt: \(name)")
        }
    }

    private static func result(description: String, text: String) -> JSONValue {
        [
            "description": .string(description),
            "messages": [["role": "user", "content": ["type": "text", "text": .string(text)]]],
        ]
    }
}
