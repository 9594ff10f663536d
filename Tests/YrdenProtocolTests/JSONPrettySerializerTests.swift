import Testing

@testable import YrdenProtocol

@Suite struct JSONPrettySerializerTests {
    private func pretty(_ value: JSONValue, indent: Int = 2) -> String {
        String(decoding: value.prettySerialized(indent: indent), as: UTF8.self)
    }

    @Test func indentsOneMemberPerLineInTheObjectsOwnOrder() throws {
        let value = try JSONValue.parse(#"{"z":1,"a":[true,null,2.5],"m":{"k":"v"},"e":{},"l":[]}"#)
        let expected = """
            {
              "z": 1,
              "a": [
                true,
                null,
                2.5
              ],
              "m": {
                "k": "v"
              },
              "e": {},
              "l": []
            }

            """
        #expect(pretty(value) == expected)
    }

    @Test func indentWidthIsAParameter() {
        let value: JSONValue = ["a": ["b": [1]]]
        #expect(pretty(value, indent: 4) == "{\n    \"a\": {\n        \"b\": [\n            1\n        ]\n    }\n}\n")
        #expect(pretty(value, indent: 0) == "{\n\"a\": {\n\"b\": [\n1\n]\n}\n}\n")
    }

    @Test func scalarsAndEmptyContainersAreOneLine() {
        #expect(pretty("x") == "\"x\"\n")
        #expect(pretty(42) == "42\n")
        #expect(pretty([]) == "[]\n")
        #expect(pretty(.object(JSONObject())) == "{}\n")
        #expect(pretty(.double(.nan)) == "null\n")
    }

    @Test func stringsAreEscapedAsTheCompactSerializerDoes() {
        let tricky = "line1\nline2\t\"q\" back\\slash \u{01}\u{1F} é 😀 ${VAR}"
        let value: JSONValue = [tricky: [.string(tricky)]]
        let text = pretty(value)
        let quoted = JSONValue.string(tricky).jsonText
        #expect(text == "{\n  \(quoted): [\n    \(quoted)\n  ]\n}\n")
        #expect(text.split(separator: "\n").count == 5, "a newline inside a string must stay escaped")
    }

    @Test func parsesBackToTheSameValueAndOrder() throws {
        let compact = #"{"mcpServers":{"b":{"command":"x","args":["-m","y"]},"a":{"url":"https://a","n":-1e-3}}}"#
        let value = try JSONValue.parse(compact)
        let reparsed = try JSONValue.parse(value.prettySerialized())
        #expect(reparsed == value)
        #expect(reparsed.jsonText == value.jsonText)
    }

    @Test func aStreamWritesWhatTheWholeDocumentWouldPieceByPiece() throws {
        let whole = try JSONValue.parse(
            #"{"version":1,"servers":{"a":{"x":[1,{"k":"v"}]},"b":{},"c":"\n"},"empty":{}}"#
        )
        var stream = PrettyJSONStream()
        var pieces: [[UInt8]] = []
        stream.openObject()
        stream.member("version", 1)
        stream.openObject("servers")
        for (key, value) in whole["servers"]?.objectValue ?? JSONObject() {
            stream.member(key, value)
            pieces.append(stream.take())
        }
        stream.closeObject()
        stream.openObject("empty")
        stream.closeObject()
        #expect(stream.pendingBytes > 0)
        stream.closeObject()
        pieces.append(stream.take())
        #expect(stream.pendingBytes == 0)
        #expect(pieces.count == 4)
        #expect(String(decoding: pieces.joined(), as: UTF8.self) == pretty(whole))
    }
}
