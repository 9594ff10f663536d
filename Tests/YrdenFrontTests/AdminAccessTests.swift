import Testing
import YrdenEngine
import YrdenHTTPServer

@testable import YrdenFront

@Suite struct AdminAccessTests {
    private let guarded = AdminAccess(token: "s3cret-token", listenHost: "0.0.0.0", publicURL: nil)
    private let open = AdminAccess(token: nil, listenHost: "127.0.0.1", publicURL: nil)

    @Test func withATokenEveryRequestMustCarryIt() {
        #expect(guarded.refusal(for: ["Host": "10.0.0.5:8750"]) == .missingToken)
        #expect(guarded.refusal(for: ["Authorization": "Bearer wrong"]) == .wrongToken)
        #expect(guarded.refusal(for: ["Authorization": "Basic czNjcmV0LXRva2Vu"]) == .wrongToken)
        #expect(guarded.refusal(for: ["Authorization": "Bearer s3cret-toke"]) == .wrongToken)
        #expect(guarded.refusal(for: ["Authorization": "Bearer s3cret-token-and-more"]) == .wrongToken)
        #expect(guarded.refusal(for: ["Authorization": "Bearer s3cret-token"]) == nil)
        #expect(guarded.refusal(for: ["authorization": "bearer  s3cret-token "]) == nil)
    }

    @Test func withoutATokenNoneIsNeeded() {
        #expect(open.refusal(for: []) == nil)
        #expect(open.refusal(for: ["Host": "127.0.0.1:8750", "Authorization": "Bearer anything"]) == nil)
        #expect(AdminAccess(token: "", listenHost: "127.0.0.1", publicURL: nil).refusal(for: []) == nil)
    }

    @Test func pagesOfOtherSitesAreRefused() {
        let headers: HTTPHeaders = ["Host": "127.0.0.1:8750", "Origin": "https://evil.example"]
        #expect(open.refusal(for: headers) == .foreignOrigin("https://evil.example"))
        var withToken = headers
        withToken.add(name: "Authorization", value: "Bearer s3cret-token")
        #expect(guarded.refusal(for: withToken) == .foreignOrigin("https://evil.example"))
        #expect(open.refusal(for: ["Host": "127.0.0.1:8750", "Origin": "null"]) == .foreignOrigin("null"))
        #expect(open.refusal(for: ["Host": "127.0.0.1:8750", "Origin": "http://127.0.0.1:9999"]) != nil)
        #expect(open.refusal(for: ["Host": "127.0.0.1:8750", "Sec-Fetch-Site": "cross-site"]) == .crossSite)
        #expect(open.refusal(for: ["Host": "127.0.0.1:8750", "Sec-Fetch-Site": "same-origin"]) == nil)
    }

    @Test func theGatewaysOwnOriginPasses() {
        #expect(open.refusal(for: ["Host": "127.0.0.1:8750", "Origin": "http://127.0.0.1:8750"]) == nil)
        #expect(open.refusal(for: ["Host": "localhost:8750", "Origin": "http://LOCALHOST:8750"]) == nil)
        #expect(open.refusal(for: ["Host": "[::1]:8750", "Origin": "http://[::1]:8750"]) == nil)
        let proxied = AdminAccess(token: "t", listenHost: "0.0.0.0", publicURL: "https://gw.example.com/base")
        #expect(
            proxied.refusal(for: ["Host": "10.1.1.1", "Origin": "https://gw.example.com", "Authorization": "Bearer t"])
                == nil
        )
    }

    @Test func withoutATokenForeignHostNamesAreRefused() {
        // DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 is same-origin.
        let rebound: HTTPHeaders = ["Host": "evil.example:8750", "Origin": "http://evil.example:8750"]
        #expect(open.refusal(for: rebound) == .foreignOrigin("http://evil.example:8750"))
        #expect(open.refusal(for: ["Host": "evil.example:8750"]) == .foreignHost("evil.example:8750"))
        #expect(open.refusal(for: ["Host": "app.localhost:8750"]) == nil)
        // With a token, the page cannot know it, so any name the operator uses is fine.
        #expect(guarded.refusal(for: ["Host": "gateway.internal:8750", "Authorization": "Bearer s3cret-token"]) == nil)
    }

    @Test func bearerCredentialsAreReadFromTheHeader() {
        #expect(AdminAccess.bearerToken(in: "Bearer abc") == "abc")
        #expect(AdminAccess.bearerToken(in: "BEARER   abc  ") == "abc")
        #expect(AdminAccess.bearerToken(in: "Bearer ") == nil)
        #expect(AdminAccess.bearerToken(in: "Bearerabc") == nil)
        #expect(AdminAccess.bearerToken(in: "Basic abc") == nil)
    }

    @Test func comparisonIsExact() {
        #expect(AdminAccess.constantTimeEquals(Array("abc".utf8), Array("abc".utf8)))
        #expect(!AdminAccess.constantTimeEquals(Array("abd".utf8), Array("abc".utf8)))
        #expect(!AdminAccess.constantTimeEquals(Array("ab".utf8), Array("abc".utf8)))
        #expect(!AdminAccess.constantTimeEquals(Array("abc\0".utf8), Array("abc".utf8)))
        #expect(!AdminAccess.constantTimeEquals([], Array("abc".utf8)))
    }

    @Test func hostNamesKeepIPv6Brackets() {
        #expect(AdminAccess.hostName(of: "[::1]:8750") == "[::1]")
        #expect(AdminAccess.hostName(of: "example.com:80") == "example.com")
        #expect(AdminAccess.hostName(of: "user@example.com") == "example.com")
    }
}

@Suite struct ClientTokenPolicyTests {
    @Test func theAdminTokenOpensTheEndpointOnlyWhenTokensAreRequired() {
        let required = ClientTokenPolicy(clientTokens: ["client"], adminToken: "admin")
        #expect(required.permits("Bearer client") && required.permits("Bearer admin"))
        #expect(!required.permits("Bearer other") && !required.permits(nil))
        let open = ClientTokenPolicy(clientTokens: [], adminToken: "admin")
        #expect(open.permits(nil), "no client tokens: the endpoint stays open, the admin token adds no requirement")
    }

    @Test func onlyTheWholeTokenMatchesWhateverItsLength() {
        let policy = ClientTokenPolicy(tokens: ["client-token"])
        #expect(policy.caller(presenting: "client-token")?.user.hasPrefix("token:") == true)
        for presented in ["client-toke", "client-tokenX", "", "client-token" + String(repeating: "x", count: 2048)] {
            #expect(policy.caller(presenting: Substring(presented)) == nil, "\(presented.prefix(16))")
        }
        let slice = "Bearer client-token"
        #expect(policy.caller(presenting: slice.dropFirst(7)) != nil, "a token taken out of its header")
    }
}
