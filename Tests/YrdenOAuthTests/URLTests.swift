import Testing
import YrdenProtocol

@testable import YrdenOAuth

@Suite struct URLTests {
    @Test func protectedResourceURLsForAURLWithAPath() throws {
        let url = try #require(OAuthURL("https://MCP.Example.com:443/mcp/"))
        #expect(
            WellKnownURLs.protectedResource(for: url) == [
                "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        )
    }

    @Test func protectedResourceURLsForAURLWithoutAPath() throws {
        for text in ["http://127.0.0.1:8001", "http://127.0.0.1:8001/"] {
            let url = try #require(OAuthURL(text))
            #expect(
                WellKnownURLs.protectedResource(for: url) == [
                    "http://127.0.0.1:8001/.well-known/oauth-protected-resource"
                ]
            )
        }
    }

    @Test func authorizationServerURLsForAnIssuerWithAPath() throws {
        let issuer = try #require(OAuthURL("https://auth.example.com/tenant1"))
        #expect(
            WellKnownURLs.authorizationServer(for: issuer) == [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        )
    }

    @Test func authorizationServerURLsForAnIssuerWithoutAPath() throws {
        let issuer = try #require(OAuthURL("https://auth.example.com:8443/"))
        #expect(
            WellKnownURLs.authorizationServer(for: issuer) == [
                "https://auth.example.com:8443/.well-known/oauth-authorization-server",
                "https://auth.example.com:8443/.well-known/openid-configuration",
            ]
        )
    }

    @Test func canonicalResourceLowercasesAndDropsDefaultPortFragmentAndRootSlash() throws {
        #expect(OAuthURL("HTTPS://Mcp.Example.COM:443/MCP#frag")?.canonicalResource == "https://mcp.example.com/MCP")
        #expect(OAuthURL("https://mcp.example.com/")?.canonicalResource == "https://mcp.example.com")
        #expect(OAuthURL("http://[::1]:8080/mcp?x=1")?.canonicalResource == "http://[::1]:8080/mcp?x=1")
    }

    @Test func refusesOtherSchemesUserinfoAndMalformedAuthorities() {
        for text in [
            "javascript:alert(1)", "ftp://x.example/", "https://user:pw@x.example/", "https://", "https://x.example:0/",
            "https://x.example:99999/", "https://x .example/", "https://[::1/", "mailto:a@b.example", "//x.example/",
        ] {
            #expect(OAuthURL(text) == nil, "\(text)")
        }
    }

    @Test(arguments: [
        // Userinfo, however it is hidden.
        "http://a@b", "http://a@b@c/", "http://@x.example/", "http://:pw@x.example/", "http://user@/",
        // Backslashes, which some parsers read as `/` and others as part of the host.
        "http://x.example\\@evil.example/", "http://x.example\\path", "http://x.example/a\\b",
        // Whitespace and control characters, anywhere.
        "http://x.example/a b", "http://x.exa\u{0}mple/", "http://x.example\t/", "http://x.example/\n",
        " http://x.example/", "http://x.example/\u{7F}",
        // Ports that are none, or that a careless parser reads as none.
        "http://[::1]:0", "http://x.example:99999999999999999999/", "http://x.example:65536/", "http://x.example:+80/",
        "http://x.example:\u{FF18}\u{FF10}/", "http://x.example:80:80/",
        // Hosts that are one thing to a check and another once decoded or normalized.
        "http://x%2Eexample/", "http://x%40evil.example/", "http://\u{FF58}.example/", "http://x!$.example/",
        "http://[zz]/", "http://[v1.x]/", "http://[fe80::1%25eth0]/", "http://[::1]]/",
        // No authority, or a malformed escape.
        "https:x.example/", "http:/x.example", "https:///path", "http://x.example/%zz",
    ])
    func refusesHostileURLs(_ text: String) {
        #expect(OAuthURL(text) == nil)
    }

    @Test func normalizesWhatItAccepts() {
        #expect(OAuthURL("HTTP://[::1]:80/")?.origin == "http://[::1]")
        #expect(OAuthURL("http://[::FFFF:127.0.0.1]:8080")?.host == "[::ffff:127.0.0.1]")
        #expect(OAuthURL("http://x.example:0080/a%20b?q=%41#f")?.description == "http://x.example/a%20b?q=%41")
        #expect(OAuthURL("https://x.example:8443?")?.description == "https://x.example:8443?")
        #expect(OAuthURL("https://x.example:/p")?.description == "https://x.example/p")
        #expect(OAuthURL("http://my_host.internal:9/")?.origin == "http://my_host.internal:9")
    }

    @Test func loopbackHosts() {
        #expect(OAuthURL("http://localhost:1/")?.isLoopback == true)
        #expect(OAuthURL("http://127.1.2.3/")?.isLoopback == true)
        #expect(OAuthURL("http://[::1]:9/")?.isLoopback == true)
        #expect(OAuthURL("http://127.0.0.1.evil.example/")?.isLoopback == false)
        #expect(OAuthURL("http://10.0.0.1/")?.isLoopback == false)
    }

    @Test func resourceContainment() throws {
        let server = try #require(OAuthURL("https://mcp.example.com/mcp"))
        #expect(server.isWithin(try #require(OAuthURL("https://mcp.example.com/mcp"))))
        #expect(server.isWithin(try #require(OAuthURL("https://mcp.example.com/"))))
        #expect(server.isWithin(try #require(OAuthURL("https://mcp.example.com"))))
        #expect(!server.isWithin(try #require(OAuthURL("https://mcp.example.com/mc"))))
        #expect(!server.isWithin(try #require(OAuthURL("https://other.example.com/mcp"))))
        #expect(!server.isWithin(try #require(OAuthURL("http://mcp.example.com/mcp"))))
    }

    @Test func urlPolicyAllowsHTTPSLoopbackAndTheServersOwnHostOnly() throws {
        let policy = URLPolicy(serverHost: "192.168.1.5")
        #expect(throws: Never.self) { try policy.check("https://auth.example.com/token", purpose: "x") }
        #expect(throws: Never.self) { try policy.check("http://localhost:9000/token", purpose: "x") }
        #expect(throws: Never.self) { try policy.check("http://192.168.1.5:9000/token", purpose: "x") }
        let error = #expect(throws: OAuthError.self) {
            try policy.check("http://169.254.169.254/latest", purpose: "the token endpoint")
        }
        #expect(error?.kind == .insecureURL)
        #expect(error?.message.contains("the token endpoint http://169.254.169.254/latest") == true)
        #expect(throws: OAuthError.self) { try policy.check("javascript:alert(1)", purpose: "x") }
    }

    @Test func formEncodingRoundTripsReservedCharacters() throws {
        let value = "a b&c=d+e/é?"
        let encoded = FormEncoding.encode([("k y", value)])
        #expect(encoded == "k%20y=a%20b%26c%3Dd%2Be%2F%C3%A9%3F")
        let decoded = try #require(FormEncoding.decode(encoded))
        #expect(decoded.count == 1)
        #expect(decoded.first?.0 == "k y")
        #expect(decoded.first?.1 == value)
        #expect(FormEncoding.decode("a=b+c")?.first?.1 == "b c")
        #expect(FormEncoding.decode("a=%zz") == nil)
    }

    @Test func base64MatchesRFC4648Vectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE="]
        for (input, expected) in vectors {
            #expect(Base64.encode(Array(input.utf8), urlSafe: false) == expected)
        }
        #expect(Base64.encode([0xFB, 0xFF], urlSafe: true) == "-_8")
    }
}
