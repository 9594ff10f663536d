import Testing

@testable import YrdenConfig

@Suite struct ConsoleSettingsTests {
    @Test func theConsoleIsOnAndItsSandboxTakesTheNextPort() throws {
        let settings = try Config.decode(#"{"gateway": {"listen": "127.0.0.1:9000"}}"#).gateway
        #expect(settings.console)
        #expect(settings.appsSandbox == ListenAddress(host: "127.0.0.1", port: 9001))
        let ephemeral = try Config.decode(#"{"gateway": {"listen": "127.0.0.1:0"}}"#).gateway
        #expect(ephemeral.appsSandbox?.port == 0)
    }

    @Test func aSandboxAddressOfItsOwnIsKeptAndAnOffConsoleHasNone() throws {
        let placed = try Config.decode(#"{"gateway": {"appsListen": "127.0.0.1:7000"}}"#).gateway
        #expect(placed.appsSandbox == ListenAddress(host: "127.0.0.1", port: 7000))
        let off = try Config.decode(#"{"gateway": {"console": false, "appsListen": "127.0.0.1:7000"}}"#).gateway
        #expect(!off.console && off.appsSandbox == nil)
    }

    @Test func theSandboxCannotShareTheConsolesOrigin() throws {
        let problem = try #require(
            Config.problems(#"{"gateway": {"listen": "127.0.0.1:8750", "appsListen": "127.0.0.1:8750"}}"#).first
        )
        #expect(problem.path == "gateway.appsListen")
        #expect(problem.fix == "use another port, e.g. 127.0.0.1:8751")
        #expect(Config.problems(#"{"gateway": {"console": "yes"}}"#).first?.path == "gateway.console")
        #expect(Config.problems(#"{"gateway": {"appsListen": "8751"}}"#).first?.path == "gateway.appsListen")
    }
}
