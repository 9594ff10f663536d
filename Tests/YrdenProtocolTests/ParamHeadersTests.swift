import Testing
import YrdenProtocol

/// `x-mcp-header` annotations: where they are valid, the headers they give, and a body they disagree with.
@Suite struct ParamHeadersTests {
    private static func schema(_ properties: JSONValue) -> JSONValue {
        ["type": "object", "properties": properties]
    }

    @Test func validAnnotationsGiveHeadersForThePresentArguments() throws {
        let schema = Self.schema([
            "region": ["type": "string", "x-mcp-header": "Region"],
            "count": ["type": "integer", "x-mcp-header": "Count"],
            "dry": ["type": "boolean", "x-mcp-header": "Dry-Run"],
            "target": ["type": "object", "properties": ["id": ["type": "string", "x-mcp-header": "Target"]]],
            "note": ["type": "string"],
        ])
        let annotations = try ParamHeaders.read(schema).get()
        #expect(annotations.annotations.count == 4)
        let headers = annotations.headers(for: [
            "region": "Émile", "count": 7, "dry": false, "target": ["id": "t1"], "note": "x",
        ])
        let byName = Dictionary(uniqueKeysWithValues: headers.map { ($0.name, $0.value) })
        #expect(
            byName == [
                "Mcp-Param-Region": "=?base64?w4ltaWxl?=", "Mcp-Param-Count": "7", "Mcp-Param-Dry-Run": "false",
                "Mcp-Param-Target": "t1",
            ]
        )
        #expect(annotations.headers(for: ["region": .null]).isEmpty, "null or absent: no header")
    }

    @Test(arguments: [
        ["amount": ["type": "number", "x-mcp-header": "Amount"]] as JSONValue,  // not string, integer or boolean
        ["list": ["type": "array", "items": ["type": "string", "x-mcp-header": "Item"]]],  // under items
        ["a": ["type": "string", "x-mcp-header": "Same"], "b": ["type": "string", "x-mcp-header": "same"]],  // twice
        ["a": ["type": "string", "x-mcp-header": "Not a token"]],
        ["a": ["type": "string", "x-mcp-header": ""]],
        ["a": ["anyOf": [["type": "string", "x-mcp-header": "A"]]]],  // under composition
    ])
    func invalidAnnotationsMakeTheToolInvalid(_ properties: JSONValue) {
        guard case .failure = ParamHeaders.read(Self.schema(properties)) else {
            Issue.record("accepted \(properties)")
            return
        }
    }

    @Test func anAnnotationOnTheRootIsInvalid() {
        let schema: JSONValue = ["type": "string", "x-mcp-header": "Whole"]
        guard case .failure = ParamHeaders.read(schema) else {
            Issue.record("accepted an annotation on the root")
            return
        }
    }

    @Test func headersAreCheckedAgainstTheBody() throws {
        let annotations = try ParamHeaders.read(
            Self.schema([
                "region": ["type": "string", "x-mcp-header": "Region"],
                "count": ["type": "integer", "x-mcp-header": "Count"],
            ])
        ).get()
        let arguments: JSONValue = ["region": "eu", "count": 3]
        func check(_ sent: [String: [String]]) -> String? {
            annotations.mismatch(arguments: arguments) { name in
                sent.first { $0.key.lowercased() == name.lowercased() }?.value ?? []
            }
        }
        #expect(check(["Mcp-Param-Region": ["eu"], "Mcp-Param-Count": ["3"]]) == nil)
        #expect(check(["mcp-param-region": ["=?base64?ZXU=?="], "Mcp-Param-Count": ["03"]]) == nil)
        #expect(check(["Mcp-Param-Count": ["3"]])?.contains("Region is missing") == true)
        #expect(check(["Mcp-Param-Region": ["us"], "Mcp-Param-Count": ["3"]])?.contains("does not match") == true)
        #expect(check(["Mcp-Param-Region": ["eu", "eu"], "Mcp-Param-Count": ["3"]]) != nil, "repeated")
        let none = annotations.mismatch(arguments: ["count": 3]) { $0 == "Mcp-Param-Region" ? ["eu"] : ["3"] }
        #expect(none?.contains("is sent, but") == true)
    }
}
