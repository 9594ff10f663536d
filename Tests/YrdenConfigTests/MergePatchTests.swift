import Testing
import YrdenProtocol

@testable import YrdenConfig

@Suite struct MergePatchTests {
    private func merged(_ target: String, _ patch: String) throws -> JSONValue {
        try JSONValue.parse(target).mergePatched(with: JSONValue.parse(patch))
    }

    /// RFC 7396, Appendix A: original, patch, result.
    @Test(arguments: [
        (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
        (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
        (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
        (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
        (#"{"a":"c"}"#, #"{"a":["b"]}"#, #"{"a":["b"]}"#),
        (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
        (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
        (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
        (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
        (#"{"a":"foo"}"#, "null", "null"),
        (#"{"a":"foo"}"#, #""bar""#, #""bar""#),
        (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
        (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
        (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
    ])
    func appendixExamples(_ target: String, _ patch: String, _ result: String) throws {
        #expect(try merged(target, patch).jsonText == result)
    }

    /// RFC 7396, section 3: members keep their place, new ones follow.
    @Test func sectionThreeExample() throws {
        let target = #"""
            {"title": "Goodbye!", "author": {"givenName": "John", "familyName": "Doe"},
             "tags": ["example", "sample"], "content": "This will be unchanged"}
            """#
        let patch = #"""
            {"title": "Hello!", "phoneNumber": "+01-123-456-7890", "author": {"familyName": null},
             "tags": ["example"]}
            """#
        let expected =
            #"{"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"#
            + #""content":"This will be unchanged","phoneNumber":"+01-123-456-7890"}"#
        #expect(try merged(target, patch).jsonText == expected)
    }

    @Test func patchingAServerEntry() throws {
        let entry = try JSONValue.parse(
            #"{"url": "https://a.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}", "X-Old": "1"},"#
                + #" "timeouts": {"connect": 5}}"#
        )
        let patch = try JSONValue.parse(
            #"{"headers": {"X-Old": null, "X-New": "2"}, "timeouts": null, "disabled": true}"#
        )
        let expected =
            #"{"url":"https://a.example/mcp","headers":{"Authorization":"Bearer ${TOKEN}","X-New":"2"},"#
            + #""disabled":true}"#
        #expect(entry.mergePatched(with: patch).jsonText == expected)
    }

    @Test func nullRemovesEveryCopyOfARepeatedKey() throws {
        #expect(try merged(#"{"a":1,"b":2,"a":3}"#, #"{"a":null}"#).jsonText == #"{"b":2}"#)
    }
}
