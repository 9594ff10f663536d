import Testing

@testable import YrdenProtocol

/// A batch is bounded before it is parsed: an oversized one is refused, one at the limit is read whole.
@Suite struct BatchLimitTests {
    private func batch(_ count: Int) -> [UInt8] {
        let members = (0..<count).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"ping","params":{"a":[1,"x,]"]}}"# }
        return Array(("[" + members.joined(separator: ", ") + "]").utf8)
    }

    @Test func aBatchAtTheLimitIsDecoded() throws {
        guard case .batch(let members) = try JSONRPCBody.decode(batch(5), maxBatchMembers: 5) else {
            Issue.record("expected a batch")
            return
        }
        #expect(members.count == 5)
    }

    @Test func aBatchOverTheLimitIsAnInvalidRequestNamingTheLimit() {
        do {
            _ = try JSONRPCBody.decode(batch(6), maxBatchMembers: 5)
            Issue.record("a batch of 6 passed a limit of 5")
        } catch {
            #expect(error.code == -32600)
            #expect(error.message.contains("at most 5 messages"))
        }
    }

    @Test func theDefaultLimitRefusesAHundredThousandMembers() {
        #expect(throws: JSONRPCError.self) { try JSONRPCBody.decode(batch(100_000)) }
    }

    @Test func commasInsideMembersAndStringsAreNotMembers() {
        #expect(
            BatchPrescan.memberCount(Array(#" [ {"a":[1,2,{"b":","}]}, "x\",y" ,3 ] "#.utf8), countingUpTo: 99) == 3
        )
        #expect(BatchPrescan.memberCount(Array("[]".utf8), countingUpTo: 99) == 0)
        #expect(BatchPrescan.memberCount(Array(#"{"id":[1,2,3]}"#.utf8), countingUpTo: 99) == nil)
        #expect(BatchPrescan.memberCount(Array("[1,2,3,4,5,6]".utf8), countingUpTo: 2) == 3)
    }
}
