import Testing

@testable import YrdenProtocol

@Suite struct JSONValueTests {
    @Test func integersStayIntegers() throws {
        let value = try JSONValue.parse(#"{"a":1,"b":1.0,"c":-0,"d":12345678901234,"e":1e3}"#)
        #expect(value["a"] == .int(1))
        #expect(value["b"] == .double(1.0))
        #expect(value["c"] == .int(0))
        #expect(value["d"] == .int(12_345_678_901_234))
        #expect(value["e"] == .double(1000))
    }

    @Test func keyOrderSurvivesARoundTrip() throws {
        let text = #"{"z":1,"a":{"y":[true,false,null],"b":"x"},"m":2.5}"#
        #expect(try JSONValue.parse(text).jsonText == text)
    }

    @Test func stringEscapesRoundTrip() throws {
        let original = "line1\nline2\t\"quoted\" back\\slash \u{01} é 😀"
        let encoded = JSONValue.string(original).jsonText
        #expect(!encoded.contains("\n"))
        #expect(encoded == #""line1\nline2\t\"quoted\" back\\slash \u0001 é 😀""#)
        #expect(try JSONValue.parse(encoded) == .string(original))
    }

    @Test func unicodeEscapesAndSurrogatePairs() throws {
        #expect(try JSONValue.parse(#""\u00e9\ud83d\ude00\/""#) == .string("é😀/"))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\"}", "{\"a\":1,}", "01", "1.", "-", "tru", "\"abc", "\"\u{01}\"", "[1] 2",
        "\"\\ud800\"", "{\"a\" 1}", "nul",
    ])
    func rejectsMalformedInput(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func deepNestingIsRefusedNotCrashed() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
    }

    @Test func objectEqualityIgnoresOrder() throws {
        #expect(try JSONValue.parse(#"{"a":1,"b":2}"#) == JSONValue.parse(#"{"b":2,"a":1}"#))
        #expect(try JSONValue.parse(#"{"a":1}"#) != JSONValue.parse(#"{"a":"1"}"#))
    }

    @Test func nonFiniteDoublesSerializeAsNull() {
        #expect(JSONValue.array([.double(.infinity), .double(.nan), .double(0.5)]).jsonText == "[null,null,0.5]")
    }

    @Test func objectSubscriptSetsReplacesAndRemoves() {
        var object: JSONObject = ["a": 1, "b": 2]
        object["a"] = 3
        object["c"] = 4
        object["b"] = nil
        #expect(JSONValue.object(object).jsonText == #"{"a":3,"c":4}"#)
    }
}
