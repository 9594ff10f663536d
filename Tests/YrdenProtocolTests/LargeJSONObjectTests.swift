import Glibc
import Testing
import YrdenTesting

@testable import YrdenProtocol

/// Objects a hostile peer makes huge (a tool schema with tens of thousands of properties) must cost time
/// linear in their size: the gateway compares and looks into them while others wait.
@Suite struct LargeJSONObjectTests {
    private static func object(_ count: Int, reversed: Bool = false) -> JSONObject {
        let order = reversed ? Array((0..<count).reversed()) : Array(0..<count)
        return JSONObject(order.map { ("p\($0)", JSONValue.object(["type": "string", "n": .int($0)])) })
    }

    @Test func lookupsSeeEveryKeyAndTheLastDuplicate() throws {
        var object = Self.object(100)
        #expect(object["p0"]?["n"] == .int(0))
        #expect(object["p99"]?["n"] == .int(99))
        #expect(object["missing"] == nil)
        object["p50"] = nil
        #expect(object["p50"] == nil)
        #expect(object["p51"]?["n"] == .int(51))
        #expect(object.count == 99)
        object["p50"] = 7
        #expect(object["p50"] == .int(7))
        let parsed = try JSONValue.parse(
            "{" + (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k3\":\"last\"}"
        )
        #expect(parsed["k3"] == .string("last"))
        #expect(parsed["k39"] == .int(39))
    }

    @Test func removingBelowTheThresholdKeepsLookupsRight() {
        var object = Self.object(JSONObject.indexThreshold)
        for key in 0..<10 { object["p\(key)"] = nil }
        #expect(object.count == JSONObject.indexThreshold - 10)
        #expect(object["p12"]?["n"] == .int(12))
        #expect(object["p3"] == nil)
    }

    @Test func equalityIgnoresOrderAndSeesOneDifference() {
        let forward = Self.object(1000)
        #expect(forward == Self.object(1000, reversed: true))
        #expect(forward.hashValue == Self.object(1000, reversed: true).hashValue)
        var changed = Self.object(1000, reversed: true)
        changed["p500"] = .object(["type": "number", "n": 500])
        #expect(forward != changed)
    }

    /// 60,000 properties, as in the report: the old quadratic comparison took seconds; a linear one takes
    /// milliseconds. The bound (one second, in a debug build) is on the CPU time the comparison takes, which a
    /// loaded machine does not stretch as it does the time on the wall. Built and compared on the heavy-work
    /// thread: building them takes a debug build most of a second.
    @Test func sixtyThousandPropertiesCompareInLinearTime() async {
        let (equal, cpu) = await offThePool { () -> (Bool, Duration) in
            let lhs = JSONValue.object(["properties": .object(Self.object(60_000))])
            let rhs = JSONValue.object(["properties": .object(Self.object(60_000))])
            let before = Self.threadCPUTime()
            let equal = lhs == rhs
            return (equal, Self.threadCPUTime() - before)
        }
        print("60,000-property schemas compared in \(cpu) of CPU")
        #expect(equal)
        #expect(cpu < .seconds(1))
    }

    /// The CPU time the calling thread has used.
    private static func threadCPUTime() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }
}
