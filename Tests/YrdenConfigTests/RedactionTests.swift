import Testing
import YrdenProtocol

@testable import YrdenConfig

@Suite struct RedactionTests {
    private static let mark = JSONValue.string(ConfigDocument.redactionMark)

    private static let remote: JSONValue = [
        "url": "https://api.example/mcp",
        "headers": ["Authorization": "Bearer sk-live-123", "X-Api-Key": "${API_KEY}", "X-Empty": ""],
        "auth": ["type": "oauth", "clientId": "gateway", "clientSecret": "cs-456"],
    ]

    @Test func literalHeaderIsHiddenAndReferenceIsShown() {
        let redacted = ConfigDocument.redactedEntry(Self.remote)
        #expect(redacted["headers"]?["Authorization"] == Self.mark)
        #expect(redacted["headers"]?["X-Api-Key"] == "${API_KEY}")
        #expect(redacted["headers"]?["X-Empty"] == "")
        #expect(redacted["auth"]?["clientSecret"] == Self.mark)
        #expect(redacted["auth"]?["clientId"] == "gateway")
        #expect(redacted["url"] == "https://api.example/mcp")
        #expect(!redacted.jsonText.contains("sk-live") && !redacted.jsonText.contains("cs-456"))
        #expect(
            redacted.jsonText.hasPrefix(#"{"url":"https://api.example/mcp","headers":{"Authorization":"********""#),
            "keys keep their order"
        )
    }

    @Test func everyEnvironmentValueIsHiddenWhateverItsShape() {
        let entry: JSONValue = [
            "command": "/bin/server",
            "args": ["--token", "visible-arg"],
            "env": [
                "TOKEN": "gh-secret", "REF": "${API_KEY}", "HOME_DIR": "${HOME}/x", "WITH_DEFAULT": "${PORT:-8080}",
                "EMPTY_DEFAULT": "${PORT:-}", "DSN": "postgres://u:SECRET@${HOST}/db", "ESCAPED": "$${NOT_A_REF}",
                "NOT_A_NAME": "${1X}", "COUNT": 3, "LIST": ["a"], "HOST_SPELLING": "x${env:TOKEN}",
            ],
        ]
        let env = ConfigDocument.redactedEntry(entry)["env"]
        #expect(env?["TOKEN"] == Self.mark)
        #expect(env?["REF"] == "${API_KEY}", "a plain reference shows where the value comes from")
        #expect(env?["HOME_DIR"] == "${HOME}********")
        #expect(env?["WITH_DEFAULT"] == "${PORT:-********}", "a default is literal text")
        #expect(env?["EMPTY_DEFAULT"] == "${PORT:-}")
        #expect(env?["DSN"] == "********${HOST}********")
        #expect(env?["ESCAPED"] == Self.mark, "$${ is a literal dollar, so the value is written out in the file")
        #expect(env?["NOT_A_NAME"] == Self.mark)
        #expect(env?["COUNT"] == Self.mark)
        #expect(env?["LIST"] == Self.mark)
        #expect(env?["HOST_SPELLING"] == "********${env:TOKEN}")
        #expect(ConfigDocument.redactedEntry(entry)["args"] == ["--token", "visible-arg"])
        #expect(!ConfigDocument.redactedEntry(entry).jsonText.contains("SECRET"))
    }

    @Test func aMixedValueSentBackAsShownKeepsTheStoredValue() {
        let stored: JSONValue = [
            "url": "https://x/mcp",
            "headers": ["Authorization": "Bearer lit-${TOKEN}", "X-Key": "${KEY:-fallback-secret}"],
        ]
        let shown = ConfigDocument.redactedEntry(stored)
        #expect(shown["headers"]?["Authorization"] == "********${TOKEN}")
        #expect(ConfigDocument.restoringRedacted(shown, from: stored) == stored)

        var changed = shown.objectValue ?? [:]
        changed["headers"] = ["Authorization": "********${OTHER}", "X-Key": "${KEY:-new}"]
        let restored = ConfigDocument.restoringRedacted(.object(changed), from: stored)
        #expect(restored["headers"]?["Authorization"] == "********${OTHER}", "not what was shown: not restored")
        #expect(ConfigDocument.holdsRedactionMark(restored["headers"]?["Authorization"]))
        #expect(restored["headers"]?["X-Key"] == "${KEY:-new}")
    }

    @Test func aRepeatedKeyCannotSmuggleASecretOut() throws {
        let entry = try JSONValue.parse(
            #"{"url": "https://x", "headers": {"A": "first-secret", "A": "second-secret"}, "headers": {"B": "third"}}"#
        )
        let text = ConfigDocument.redactedEntry(entry).jsonText
        #expect(!text.contains("first-secret") && !text.contains("second-secret") && !text.contains("third"))
    }

    @Test func documentRedactsEveryServerAndTheAdminToken() throws {
        let document = try Document.parse(
            #"{"gateway": {"listen": "127.0.0.1:1", "adminToken": "admin-literal"},"#
                + #" "mcpServers": {"a": {"url": "https://a", "headers": {"Authorization": "Bearer lit"}},"#
                + #" "b": {"command": "/bin/b", "env": {"KEY": "${KEY}", "PASS": "pw"}}}}"#
        )
        let redacted = document.redacted()
        #expect(redacted.json["gateway"]?["adminToken"] == Self.mark)
        #expect(redacted.json["gateway"]?["listen"] == "127.0.0.1:1")
        #expect(redacted.entry("a")?["headers"]?["Authorization"] == Self.mark)
        #expect(redacted.entry("b")?["env"] == ["KEY": "${KEY}", "PASS": Self.mark])
        #expect(redacted.serverIDs == ["a", "b"])
        let text = Document.text(redacted)
        #expect(!text.contains("admin-literal") && !text.contains("Bearer lit") && !text.contains("pw\""))
        #expect(document.entry("b")?["env"]?["PASS"] == "pw", "the document itself keeps its values")

        let referenced = try Document.parse(#"{"gateway": {"adminToken": "${YRDEN_ADMIN_TOKEN}"}}"#).redacted()
        #expect(referenced.json["gateway"]?["adminToken"] == "${YRDEN_ADMIN_TOKEN}")
    }

    @Test func restoringPutsBackWhatTheClientGot() {
        let shown = ConfigDocument.redactedEntry(Self.remote)
        let restored = ConfigDocument.restoringRedacted(shown, from: Self.remote)
        #expect(restored == Self.remote)
        #expect(restored.jsonText == Self.remote.jsonText)
    }

    @Test func restoringKeepsNewValuesAndMarksWithoutAnOldValue() {
        var changed = ConfigDocument.redactedEntry(Self.remote).objectValue ?? [:]
        changed["headers"] = ["Authorization": "Bearer rotated", "X-Api-Key": Self.mark, "X-New": Self.mark]
        changed["command"] = Self.mark
        let restored = ConfigDocument.restoringRedacted(.object(changed), from: Self.remote)
        #expect(restored["headers"]?["Authorization"] == "Bearer rotated")
        #expect(restored["headers"]?["X-Api-Key"] == "${API_KEY}")
        #expect(restored["headers"]?["X-New"] == Self.mark, "nothing to restore from")
        #expect(restored["auth"]?["clientSecret"] == "cs-456")
        #expect(restored["command"] == Self.mark, "only secret places are restored")

        let added = ConfigDocument.redactedEntry(Self.remote)
        #expect(ConfigDocument.restoringRedacted(added, from: nil) == added)
    }

    @Test func aRedactedEntrySentBackValidatesAsTheOriginal() throws {
        let document = try Document.parse(
            #"{"mcpServers": {"api": {"url": "https://api.example/mcp","#
                + #" "headers": {"Authorization": "Bearer sk-live-123", "X-Api-Key": "${API_KEY}"}},"#
                + #" "tool": {"command": "/bin/tool", "env": {"PASSWORD": "pw-789"}}}}"#
        )
        let environment = ["API_KEY": "k"]
        for id in document.serverIDs {
            let stored = try #require(document.entry(id))
            let original = try document.validatingEntry(stored, id: id, environment: environment)
            let shown = ConfigDocument.redactedEntry(stored)
            #expect(shown != stored, "\(id) has a secret to hide")
            let putBack = ConfigDocument.restoringRedacted(shown, from: stored)
            #expect(try document.validatingEntry(putBack, id: id, environment: environment) == original)
        }
    }
}

@Suite struct URLRedactionTests {
    @Test func credentialsInAURLAreHiddenAndTheRestIsShown() {
        #expect(
            ConfigDocument.redactedURL("https://bob:hunter2@example.com/mcp?api_key=abc&region=eu")
                == "https://bob:********@example.com/mcp?api_key=********&region=eu"
        )
        #expect(ConfigDocument.redactedURL("https://example.com/mcp") == "https://example.com/mcp")
        #expect(ConfigDocument.redactedURL("https://x/mcp?token=${TOKEN}") == "https://x/mcp?token=${TOKEN}")
    }

    @Test func aURLSentBackAsShownKeepsTheStoredCredentials() {
        let stored: JSONValue = ["url": "https://x/mcp?token=s3cret"]
        let shown = ConfigDocument.redactedEntry(stored)
        #expect(shown["url"] == "https://x/mcp?token=********")
        #expect(ConfigDocument.restoringRedacted(shown, from: stored) == stored)
        let changed: JSONValue = ["url": "https://y/mcp?token=********"]
        #expect(ConfigDocument.restoringRedacted(changed, from: stored) == changed)
    }
}

@Suite struct GatewaySecretRedactionTests {
    @Test func clientTokensAreRedactedUnlessTheyAreReferences() throws {
        let document = try ConfigDocument(
            parsing: Array(#"{"gateway": {"clientTokens": ["s3cret", "${TOKEN}"]}}"#.utf8),
            source: "test"
        )
        #expect(document.redacted().json["gateway"]?["clientTokens"] == ["********", "${TOKEN}"])
    }
}

@Suite struct GatewaySecretRestoringTests {
    @Test func tokensSentBackAsShownKeepTheStoredOnes() throws {
        let stored: JSONValue = ["adminToken": "lit${A:-default}", "clientTokens": ["one", "${TWO}", "x${THREE}"]]
        let document = ConfigDocument(["gateway": stored])
        let shown = try #require(document.redacted().json["gateway"])
        #expect(
            shown == [
                "adminToken": "********${A:-********}", "clientTokens": ["********", "${TWO}", "********${THREE}"],
            ]
        )
        #expect(ConfigDocument.restoringRedactedGateway(shown, from: stored) == stored)
        let rotated: JSONValue = ["adminToken": "new", "clientTokens": ["********", "${TWO}", "fresh"]]
        #expect(
            ConfigDocument.restoringRedactedGateway(rotated, from: stored)
                == ["adminToken": "new", "clientTokens": ["one", "${TWO}", "fresh"]]
        )
    }
}

@Suite struct SecretVariableTests {
    @Test func variablesBehindTheGatewaysOwnSecretsAreNamed() throws {
        let document = try ConfigDocument(
            parsing: Array(
                (#"{"gateway": {"adminToken": "${ADMIN}", "clientTokens": ["${CLIENT}", "literal"]},"#
                    + #" "mcpServers": {"r": {"url": "https://u:${PASS}@${HOST}/mcp?token=${QTOKEN}&region=${REGION}","#
                    + #" "headers": {"Authorization": "Bearer ${env:HEADER:-x}"}, "auth": {"type": "oauth", "clientSecret": "${CS}"}},"#
                    + #" "s": {"command": "${CMD}", "env": {"PATH": "${PATH}:/opt/bin"}}},"#
                    + #" "profiles": {"p": {"clientTokens": ["${PTOKEN}"]}}}"#).utf8
            ),
            source: "test"
        )
        #expect(document.secretVariables == ["ADMIN", "CLIENT", "PASS", "QTOKEN", "HEADER", "CS", "PTOKEN"])
    }
}

@Suite struct CredentialScrubbingTests {
    @Test func credentialsOfEveryURLInAMessageAreHidden() {
        let message = "GET http://bob:pw1@h:1/x?token=tk1&a=b failed; see 'https://h/cb?code=c0de' (or ws://x)"
        #expect(
            URLCredentials.scrubbing(message, mark: "*")
                == "GET http://bob:*@h:1/x?token=*&a=b failed; see 'https://h/cb?code=*' (or ws://x)"
        )
        #expect(URLCredentials.scrubbing("no url here", mark: "*") == "no url here")
    }

    @Test func anInvalidURLIsReportedWithoutItsCredentials() throws {
        let document = try ConfigDocument(
            parsing: Array(#"{"mcpServers": {"r": {"url": "ftp://u:PASSWORD@h/?token=TOKEN&sig=${SIG}"}}}"#.utf8),
            source: "test"
        )
        do {
            _ = try document.decoded(environment: ["SIG": "s"], source: "test")
            Issue.record("the URL is not http or https, so the document is invalid")
        } catch {
            let text = error.problems.map(\.message).joined()
            #expect(!text.contains("PASSWORD") && !text.contains("TOKEN"))
            #expect(text.contains("ftp://u:********@h/?token=********&sig=${SIG}"))
        }
    }
}
