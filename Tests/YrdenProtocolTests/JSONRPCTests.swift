import Testing

@testable import YrdenProtocol

@Suite struct JSONRPCTests {
    private func decodeSingle(_ text: String) throws -> Result<JSONRPCMessage, JSONRPCError> {
        guard case .single(let result, _) = try JSONRPCBody.decode(Array(text.utf8)) else {
            Issue.record("expected a single message")
            throw JSONRPCError.internalError("not single")
        }
        return result
    }

    @Test func idsKeepTheirJSONType() throws {
        let numeric = try decodeSingle(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).get()
        let textual = try decodeSingle(#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#).get()
        guard case .request(let a) = numeric, case .request(let b) = textual else {
            Issue.record("expected requests")
            return
        }
        #expect(a.id == .int(1))
        #expect(b.id == .string("1"))
        #expect(a.id != b.id)
        #expect(numeric.json["id"] == .int(1))
        #expect(textual.json["id"] == .string("1"))
    }

    @Test func malformedJSONIsAParseError() {
        #expect(throws: JSONRPCError.self) { try JSONRPCBody.decode(Array("{not json".utf8)) }
        do {
            _ = try JSONRPCBody.decode(Array("{not json".utf8))
        } catch {
            #expect(error.code == -32700)
        }
    }

    @Test(arguments: [
        #"{"id":1,"method":"ping"}"#,
        #"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":5}"#,
        #"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}"#,
        #"{"jsonrpc":"2.0","id":1}"#,
        #"[1,2]"#,
        #""hello""#,
    ])
    func invalidRequestsAreRejectedWith32600(_ text: String) throws {
        let body = try JSONRPCBody.decode(Array(text.utf8))
        let results: [Result<JSONRPCMessage, JSONRPCError>]
        switch body {
        case .single(let result, _): results = [result]
        case .batch(let members): results = members.map(\.0)
        }
        for result in results {
            guard case .failure(let error) = result else {
                Issue.record("accepted \(text)")
                continue
            }
            #expect(error.code == -32600)
        }
    }

    @Test func invalidRequestKeepsItsIDForTheReply() throws {
        guard case .single(_, let rawID) = try JSONRPCBody.decode(Array(#"{"id":7,"method":"x"}"#.utf8)) else {
            Issue.record("expected single")
            return
        }
        #expect(rawID == .int(7))
    }

    @Test func emptyBatchIsInvalid() {
        do {
            _ = try JSONRPCBody.decode(Array("[]".utf8))
            Issue.record("accepted an empty batch")
        } catch {
            #expect(error.code == -32600)
        }
    }

    @Test func batchesKeepEachMembersOutcome() throws {
        let text = #"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"bad":true},{"jsonrpc":"2.0","method":"n"}]"#
        guard case .batch(let members) = try JSONRPCBody.decode(Array(text.utf8)) else {
            Issue.record("expected a batch")
            return
        }
        #expect(members.count == 3)
        #expect((try? members[0].0.get()) != nil)
        #expect((try? members[1].0.get()) == nil)
        if case .success(.notification(let note)) = members[2].0 {
            #expect(note.method == "n")
        } else {
            Issue.record("third member should be a notification")
        }
    }

    @Test func responsesDecodeResultsAndErrors() throws {
        let ok = try decodeSingle(#"{"jsonrpc":"2.0","id":"a","result":{"x":1}}"#).get()
        let failed = try decodeSingle(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"nope"}}"#).get()
        #expect(ok == .response(JSONRPCResponse(id: .string("a"), result: ["x": 1])))
        #expect(failed == .response(JSONRPCResponse(id: nil, error: JSONRPCError(code: -32601, message: "nope"))))
        #expect(failed.json.jsonText == #"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"nope"}}"#)
    }
}

/// A response whose result was serialized beforehand is written as if it had been serialized now.
@Suite struct EncodedResultTests {
    @Test(arguments: [JSONRPCID.int(7), .string("a\"b"), nil])
    func aResponseWithAnEncodedResultIsWrittenAsItsJSON(_ id: JSONRPCID?) {
        let result: JSONValue = ["tools": .array([["name": "x", "n": .int(-3)]]), "nextCursor": "y1.2.1f4"]
        var response = JSONRPCResponse(id: id, result: result)
        let plain = JSONRPCMessage.response(response).serialized()
        response.encodedResult = EncodedJSON(result)
        #expect(JSONRPCMessage.response(response).serialized() == plain)
        #expect(plain == JSONRPCMessage.response(response).json.serialized())
        var framed = Array("data: ".utf8)
        JSONRPCMessage.response(response).write(into: &framed)
        #expect(framed == Array("data: ".utf8) + plain)
    }
}

/// Every kind of message is written straight to bytes; those bytes are its JSON tree's, key order included.
@Suite struct MessageSerializationTests {
    static let messages: [JSONRPCMessage] = [
        .request(JSONRPCRequest(id: .int(-4), method: "tools/call", params: ["name": "a\"b", "arguments": [:]])),
        .request(JSONRPCRequest(id: .string("r\n1"), method: "ping")),
        .notification(JSONRPCNotification(method: "notifications/progress", params: .array([1, 2.5, nil]))),
        .notification(JSONRPCNotification(method: "notifications/initialized")),
        .response(JSONRPCResponse(id: .int(9), result: ["content": .array([["type": "text", "text": "é"]])])),
        .response(JSONRPCResponse(id: nil, error: JSONRPCError(code: -32600, message: "bad", data: ["x": true]))),
    ]

    @Test(arguments: messages)
    func aMessageIsWrittenAsItsJSONTree(_ message: JSONRPCMessage) throws {
        #expect(message.serialized() == message.json.serialized())
        #expect(try JSONRPCMessage(JSONValue.parse(message.serialized())) == message)
    }
}
