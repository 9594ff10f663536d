import Testing
import YrdenProtocol

@testable import YrdenConfig

/// `store`: the PostgreSQL URL (with `${VAR}` expanded), what a wrong one is told, and how a document is split
/// between what replicas share and what each keeps for itself.
@Suite struct StoreSettingsTests {
    @Test func withoutAStoreNothingIsShared() throws {
        #expect(try Config.decode("{}").store.postgres == nil)
    }

    @Test func theURLExpandsItsPassword() throws {
        let config = try Config.decode(
            #"{"store": {"postgres": "postgres://yrden:${PW}@db:5432/yrden"}}"#,
            environment: ["PW": "s3cret"]
        )
        #expect(config.store.postgres == "postgres://yrden:s3cret@db:5432/yrden")
    }

    @Test func aURLOfAnotherSchemeIsRefusedNamingTheField() throws {
        let problem = try #require(Config.problems(#"{"store": {"postgres": "mysql://db/yrden"}}"#).first)
        #expect(problem.path == "store.postgres")
        #expect(problem.fix.contains("postgres://"))
    }

    @Test func aStoreWithoutADatabaseIsAProblem() {
        #expect(Config.problems(#"{"store": {}}"#).map(\.path) == ["store"])
        #expect(Config.problems(#"{"store": {"redis": "x"}}"#).map(\.path).contains("store.redis"))
    }

    @Test func theSharedPartLeavesOutTheStoreAndEachReplicasOwnSettings() throws {
        let document = try ConfigDocument(
            parsing: Array(
                #"""
                {"store": {"postgres": "postgres://u:${PW}@db/x"},
                 "gateway": {"listen": "0.0.0.0:8750", "dataDir": "/var/lib/yrden", "clientTokens": ["t"]},
                 "mcpServers": {"a": {"command": "a"}}}
                """#.utf8
            ),
            source: "test"
        )
        let shared = document.sharedPart
        #expect(shared.json["store"] == nil)
        #expect(shared.json["gateway"] == ["clientTokens": ["t"]])
        #expect(shared.json["mcpServers"] == document.json["mcpServers"])
    }

    @Test func aReplicaRunsTheSharedDocumentWithItsOwnListenerAndNoStoreURL() throws {
        let shared = ConfigDocument(["gateway": ["clientTokens": ["t"]], "mcpServers": ["a": ["command": "a"]]])
        let local = ConfigDocument([
            "store": ["postgres": "postgres://u@db/x"], "gateway": ["listen": "127.0.0.1:9000"],
        ])
        let running = shared.withReplicaSettings(of: local)
        #expect(running.json["gateway"] == ["clientTokens": ["t"], "listen": "127.0.0.1:9000"])
        #expect(running.json["store"] == nil)
        #expect(running.sharedPart == shared)
    }
}

/// The store's URL holds the database's password: what it refers to is a secret no child inherits.
@Suite struct StoreSecretVariablesTests {
    @Test func theStoreURLsVariablesAreSecrets() throws {
        let document = ConfigDocument(["store": ["postgres": "postgres://u:${PGPASSWORD}@${PGHOST}/x"]])
        #expect(document.secretVariables == ["PGPASSWORD", "PGHOST"])
    }
}
