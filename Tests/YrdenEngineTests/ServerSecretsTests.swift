import Testing
import YrdenConfig
import YrdenTransport

@testable import YrdenEngine

@Suite struct ServerSecretsTests {
    @Test func aRemoteServersCredentialsAreHiddenWhereverTheyAreEchoed() {
        let spec = ServerSpec(
            id: "r",
            transport: .http(
                url: "https://u:url-pass-123@h/mcp?token=query-token-456",
                headers: ["Authorization": "Bearer sk-live-789", "X-Short": "abc"],
                auth: .oauth(OAuthSpec(clientSecret: "client-secret-0")),
                fallbackToSSE: false
            )
        )
        let secrets = ServerSecrets(spec)
        let echoed = "bad token sk-live-789 (Bearer sk-live-789), url-pass-123, query-token-456, client-secret-0, abc"
        #expect(secrets.scrub(echoed) == "bad token ******** (********), ********, ********, ********, abc")
        let error = secrets.scrub(UpstreamError(.auth, "refused sk-live-789", httpStatus: 401))
        #expect(error.message == "refused ********" && error.kind == .auth && error.httpStatus == 401)
    }

    @Test func aChildsEnvironmentValuesAreHiddenInWhatItWrites() {
        let spec = ServerSpec(
            id: "s",
            transport: .stdio(command: "x", args: [], env: ["TOKEN": "gh-secret", "TZ": "UTC"], cwd: nil)
        )
        #expect(ServerSecrets(spec).scrub("token=gh-secret tz=UTC") == "token=******** tz=UTC")
    }
}
