import Testing

@testable import YrdenOAuth

@Suite struct AuthenticationChallengeTests {
    @Test func bearerChallengeWithResourceMetadataAndScope() throws {
        let header =
            #"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", "#
            + #"scope="files:read files:write""#
        let challenge = try #require(BearerChallenge(header: header))
        #expect(challenge.resourceMetadata == "https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
        #expect(challenge.scopes == ["files:read", "files:write"])
        #expect(challenge.error == nil)
    }

    @Test func quotedValuesKeepCommasEqualsSignsAndEscapedQuotes() {
        let header = #"Bearer realm="a, b=c", error_description="say \"hi\", then go", error=invalid_token"#
        let challenges = AuthenticationChallenge.parse(header)
        #expect(challenges.count == 1)
        #expect(challenges.first?.parameters["realm"] == "a, b=c")
        #expect(challenges.first?.parameters["error_description"] == #"say "hi", then go"#)
        #expect(challenges.first?.parameters["error"] == "invalid_token")
    }

    @Test func severalChallengesInOneHeader() throws {
        let header = #"Basic realm="legacy, old", Bearer error="insufficient_scope", scope="admin", Negotiate abc=="#
        let challenges = AuthenticationChallenge.parse(header)
        #expect(challenges.map(\.scheme) == ["Basic", "Bearer", "Negotiate"])
        #expect(challenges[0].parameters == ["realm": "legacy, old"])
        #expect(challenges[1].parameters == ["error": "insufficient_scope", "scope": "admin"])
        #expect(challenges[2].token68 == "abc==")
        let bearer = try #require(BearerChallenge(header: header))
        #expect(bearer.isInsufficientScope)
        #expect(bearer.scopes == ["admin"])
    }

    @Test func schemeAndParameterNamesAreCaseInsensitive() throws {
        let challenge = try #require(BearerChallenge(header: #"bearer Resource_Metadata="https://x.example/m""#))
        #expect(challenge.resourceMetadata == "https://x.example/m")
    }

    @Test func bearerIsFoundAmongSeveralHeaderFields() throws {
        let challenge = try #require(BearerChallenge(headers: [#"Basic realm="x""#, #"Bearer scope="a""#]))
        #expect(challenge.scopes == ["a"])
    }

    @Test func noBearerChallengeIsNil() {
        #expect(BearerChallenge(header: #"Basic realm="x""#) == nil)
        #expect(BearerChallenge(header: "") == nil)
    }

    @Test func bareBearerAndSpacingAroundEquals() throws {
        #expect(BearerChallenge(header: "Bearer") == BearerChallenge())
        let spaced = try #require(BearerChallenge(header: #"Bearer  scope = "a  b" ,error = insufficient_scope"#))
        #expect(spaced.scopes == ["a", "b"])
        #expect(spaced.error == "insufficient_scope")
    }

    @Test func unterminatedQuoteRunsToTheEndInsteadOfFailing() {
        let challenges = AuthenticationChallenge.parse(#"Bearer scope="a b"#)
        #expect(challenges.first?.parameters["scope"] == "a b")
    }

    @Test func emptyScopeIsNoScope() throws {
        let challenge = try #require(BearerChallenge(header: #"Bearer scope="""#))
        #expect(challenge.scopes == nil)
    }
}
