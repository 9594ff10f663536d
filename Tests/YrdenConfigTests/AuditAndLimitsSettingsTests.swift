import Testing
import YrdenProtocol

@testable import YrdenConfig

/// `audit` and `limits`: what they read as, their defaults, and what a wrong value is told.
@Suite struct AuditAndLimitsSettingsTests {
    @Test func withoutThemNothingIsAuditedOrLimited() throws {
        let config = try Config.decode("{}")
        #expect(config.audit.file == nil)
        #expect(config.limits.isEmpty)
    }

    @Test func theAuditFileAndItsRotation() throws {
        let config = try Config.decode(
            #"{"audit": {"file": "${LOGS}/audit.jsonl", "maxBytes": 1048576, "keep": 3}}"#,
            environment: ["LOGS": "/var/log/yrden"]
        )
        #expect(config.audit == AuditSettings(file: "/var/log/yrden/audit.jsonl", maxBytes: 1_048_576, keep: 3))
        #expect(try Config.decode(#"{"audit": {"file": "a.jsonl"}}"#).audit.maxBytes == AuditSettings.defaultMaxBytes)
    }

    @Test func anAuditWithoutAFileOrWithATinySizeIsAProblem() {
        #expect(Config.problems(#"{"audit": {}}"#).map(\.path) == ["audit"])
        #expect(Config.problems(#"{"audit": {"file": "a", "maxBytes": 100}}"#).map(\.path) == ["audit.maxBytes"])
        #expect(Config.problems(#"{"audit": {"file": "a", "keep": 0}}"#).map(\.path) == ["audit.keep"])
        #expect(Config.problems(#"{"audit": {"file": "a", "rotate": 1}}"#).map(\.path) == ["audit.rotate"])
    }

    @Test func limitsReadAsBuckets() throws {
        let config = try Config.decode(
            #"""
            {"profiles": {"ops": {}},
             "limits": {"user": {"rate": 5, "burst": 10}, "users": {"ci": {"rate": 0.5}},
                        "profiles": {"ops": {"rate": 100, "burst": 200}},
                        "tools": {"demo__echo": {"rate": 1, "burst": 1}}, "maxBuckets": 500}}
            """#
        )
        #expect(config.limits.user == RateLimit(rate: 5, burst: 10))
        #expect(config.limits.users["ci"] == RateLimit(rate: 0.5, burst: 1), "burst defaults to the rate, at least 1")
        #expect(config.limits.profiles["ops"] == RateLimit(rate: 100, burst: 200))
        #expect(config.limits.tools["demo__echo"] == RateLimit(rate: 1, burst: 1))
        #expect(config.limits.maxBuckets == 500)
        #expect(config.limits.profile == nil)
    }

    @Test func aWrongBucketIsToldWhereAndHow() {
        #expect(Config.problems(#"{"limits": {"user": {"burst": 3}}}"#).map(\.path) == ["limits.user"])
        #expect(Config.problems(#"{"limits": {"user": {"rate": 0}}}"#).map(\.path) == ["limits.user.rate"])
        #expect(Config.problems(#"{"limits": {"user": {"rate": "5"}}}"#).map(\.path) == ["limits.user.rate"])
        #expect(Config.problems(#"{"limits": {"user": {"rate": 5, "burst": 0}}}"#).map(\.path) == ["limits.user.burst"])
        let unknownProfile = Config.problems(#"{"limits": {"profiles": {"nope": {"rate": 1}}}}"#)
        #expect(unknownProfile.map(\.path) == ["limits.profiles.nope"])
        #expect(unknownProfile.first?.message.contains("no profile") == true)
    }
}

/// With a store, each replica keeps its own trail: `audit` stays out of the shared document, and each replica
/// runs the shared one with its own `audit` put back; `limits` are shared like the rest.
@Suite struct AuditWithAStoreTests {
    @Test func eachReplicaKeepsItsOwnAuditAndSharesItsLimits() throws {
        let local = try ConfigDocument(
            parsing: Array(
                #"""
                {"store": {"postgres": "postgres://u:${PW}@db/x"},
                 "audit": {"file": "/var/log/replica1/audit.jsonl"},
                 "limits": {"user": {"rate": 5}},
                 "mcpServers": {"a": {"command": "a"}}}
                """#.utf8
            ),
            source: "test"
        )
        let shared = local.sharedPart
        #expect(shared.json["audit"] == nil)
        #expect(shared.json["limits"] == local.json["limits"])
        let otherReplica = ConfigDocument(["audit": ["file": "/var/log/replica2/audit.jsonl"]])
        let running = shared.withReplicaSettings(of: otherReplica)
        #expect(running.json["audit"] == ["file": "/var/log/replica2/audit.jsonl"])
        #expect(running.json["limits"] == local.json["limits"])
    }
}
