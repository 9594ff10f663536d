import Testing

@testable import YrdenConfig

/// An upstream's `auth` keys beyond the basic OAuth ones: the client ID metadata document.
@Suite struct UpstreamAuthConfigTests {
    private static func oauth(_ auth: String) throws -> OAuthSpec? {
        let server = try Config.server(#"{"url": "https://tasks.example.com/mcp", "auth": \#(auth)}"#)
        guard case .http(_, _, .oauth(let spec), _) = server?.transport else { return nil }
        return spec
    }

    @Test func aClientMetadataURLIsKept() throws {
        let spec = try Self.oauth(
            #"{"type": "oauth", "clientMetadataURL": "https://gw.example.com/oauth/client.json"}"#
        )
        #expect(spec?.clientMetadataURL == "https://gw.example.com/oauth/client.json")
        // Plain http only on this machine, as for a development gateway.
        let local = try Self.oauth(#"{"type": "oauth", "clientMetadataURL": "http://127.0.0.1:8080/client.json"}"#)
        #expect(local?.clientMetadataURL == "http://127.0.0.1:8080/client.json")
    }

    @Test(arguments: [
        ("http://gw.example.com/client.json", "is not https"),
        ("https://gw.example.com", "has no path"),
        ("https://gw.example.com/", "has no path"),
        ("https://gw.example.com/client.json#x", "has a fragment"),
        ("gw.example.com/client.json", "is not an absolute http or https URL"),
    ])
    func aClientMetadataURLThatCIMDForbidsIsAProblem(url: String, problem: String) {
        let problems = Config.serverProblems(
            #"{"url": "https://tasks.example.com/mcp", "auth": {"type": "oauth", "clientMetadataURL": "\#(url)"}}"#
        )
        #expect(problems.count == 1)
        #expect(problems.first?.path == "mcpServers.s.auth.clientMetadataURL")
        #expect(problems.first?.message.contains(problem) == true, "\(problems)")
    }
}
