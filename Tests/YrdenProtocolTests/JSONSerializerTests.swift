import Testing

@testable import YrdenProtocol

/// The compact serializer writes eight bytes at a time past text with nothing to escape; these pin that every
/// byte that needs an escape is escaped wherever it falls, and integers at their limits.
@Suite struct JSONSerializerTests {
    /// JSON's escapes, one byte at a time: the reference the fast path must agree with.
    static func reference(_ string: String) -> String {
        var out = Array("\"".utf8)
        for byte in string.utf8 {
            switch byte {
            case 0x22: out += Array("\\\"".utf8)
            case 0x5C: out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0..<0x20: out += Array(("\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)).utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out + Array("\"".utf8), as: UTF8.self)
    }

    @Test(arguments: ["\"", "\\", "\n", "\u{01}", "\u{1F}", "\t"])
    func anEscapeAtEveryOffsetOfALongStringIsWritten(_ special: String) throws {
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 31] {
            for offset in 0...length {
                let text =
                    String(repeating: "a", count: offset) + special + String(repeating: "é", count: length - offset)
                let encoded = JSONValue.string(text).jsonText
                #expect(encoded == Self.reference(text), "length \(length), offset \(offset)")
                #expect(try JSONValue.parse(encoded) == .string(text))
            }
        }
    }

    @Test func multiByteTextAndBytesNearTheEscapedOnesPassAsTheyAre() throws {
        let text = "Ünïcødé 😀 — ! # [ ] ^ ` ~ \u{7F} 漢字 #$%&'()*+,-./" + String(repeating: "ß", count: 40)
        #expect(JSONValue.string(text).jsonText == Self.reference(text))
        #expect(try JSONValue.parse(JSONValue.string(text).serialized()) == .string(text))
    }

    @Test(arguments: [0, 7, -7, 10, -10, 99, 100, Int.max, Int.min, 1_000_000_007, -9_007_199_254_740_993])
    func integersAreWrittenAsTheirDecimalDigits(_ value: Int) throws {
        #expect(JSONValue.int(value).jsonText == String(value))
        #expect(try JSONValue.parse(JSONValue.int(value).jsonText) == .int(value))
    }

    @Test func writingIntoBytesAppendsAfterWhatIsThere() {
        var bytes = Array("data: ".utf8)
        JSONValue.object(["k": .array([.int(1), .null, .bool(true), .double(0.5)])]).write(into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"data: {"k":[1,null,true,0.5]}"#)
    }

    @Test func aDocumentLargerThanTheFirstBufferIsWrittenWhole() throws {
        let items = (0..<5000).map { JSONValue.object(["name": .string("tool\($0)"), "n": .int($0)]) }
        let encoded = JSONValue.array(items).serialized()
        #expect(try JSONValue.parse(encoded) == .array(items))
    }

    @Test func stringsOutsideASCIIAreStillValidated() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0x61, 0xC3, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }
    }
}
