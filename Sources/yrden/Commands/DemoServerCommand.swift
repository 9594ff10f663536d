import ArgumentParser
import YrdenDemoServer

struct DemoServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-server",
        abstract: "Serve the built-in demo MCP server over stdio (used by the default config, tests, benchmarks)."
    )

    func run() async throws {
        await DemoServer.run()
    }
}
