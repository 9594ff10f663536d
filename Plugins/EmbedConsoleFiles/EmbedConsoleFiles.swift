import Foundation
import PackagePlugin

/// Embeds the web console's files (`www/` beside the target's sources) in the binary at build time, as string
/// constants: the console is served with no files on disk and no build step outside `swift build`.
@main
struct EmbedConsoleFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let folder = target.directoryURL.appending(path: "www")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "ConsoleFiles+Embedded.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) console files",
                executable: try context.tool(named: "ConsoleFileEmbedder").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
