import ArgumentParser
import YrdenProtocol

/// `yrden tools pins`: every pinned tool, changed ones first, then what changed in each of those.
struct ToolsPins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pins",
        abstract: "Show every pinned tool definition, changed ones first, with what changed."
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(help: "Show only tools whose definition changed.")
    var changed = false

    @Flag(help: "Print the API's JSON as it came, for scripts.")
    var json = false

    func run() async throws {
        try await ClientSession.run(try connection.endpoint()) { client in
            let response = try await client.get("/api/v1/tool-pins")
            if json { return Output.write(response.body) }
            let body = try response.json()
            let all = body["pins"]?.arrayValue ?? []
            let pins = all.filter { !changed || $0["state"] == "changed" }
            let report = PinReport(
                mode: body["mode"]?.stringValue ?? "?",
                pins: pins,
                pinnedCount: all.count,
                onlyChanged: changed
            )
            print(report.rendered())
        }
    }
}

/// What `tools pins` prints: the mode, a table of pins, and for each changed tool its diff and the command
/// that approves it.
struct PinReport {
    var mode: String
    /// The pins shown.
    var pins: [JSONValue]
    /// How many pins there are, shown or not.
    var pinnedCount: Int
    /// Whether only changed pins are shown (`--changed`): then none shown does not mean none pinned.
    var onlyChanged = false

    func rendered() -> String {
        let changedPins = pins.filter { $0["state"] == "changed" }
        var lines = ["tool pinning: \(mode); \(changedPins.count) changed"]
        guard !pins.isEmpty else {
            let none =
                onlyChanged && pinnedCount > 0
                ? "no changed tools; \(pinnedCount) pinned tool\(pinnedCount == 1 ? " is" : "s are") as pinned"
                : "no pinned tools"
            return (lines + [none]).joined(separator: "\n")
        }
        var table = TextTable(header: ["SERVER", "TOOL", "STATE", "CHANGED", "SINCE"])
        table.rows = pins.map { pin in
            let change = pin["change"]
            let fields = change?["diff"]?["fields"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let state = pin["withheld"] == true ? "withheld" : pin["state"]?.stringValue ?? "?"
            return [
                pin["server"]?.stringValue ?? "?", pin["tool"]?.stringValue ?? "?",
                pin["listed"] == false ? "\(state) (unlisted)" : state,
                fields.isEmpty ? "-" : fields.joined(separator: ","),
                (change?["changedAt"] ?? pin["pinnedAt"])?.stringValue ?? "-",
            ]
        }
        lines.append(table.rendered())
        for pin in changedPins {
            let server = pin["server"]?.stringValue ?? "?"
            let tool = pin["tool"]?.stringValue ?? "?"
            lines.append("")
            lines.append("\(server) \(tool):")
            lines += Self.diffLines(pin["change"]?["diff"]).map { "  " + $0 }
            lines.append("  approve: yrden tools approve \(server) \(tool)")
        }
        return lines.joined(separator: "\n")
    }

    /// Each text before and after, then each changed place in the schemas and annotations.
    static func diffLines(_ diff: JSONValue?) -> [String] {
        var lines: [String] = []
        for (field, text) in diff?["texts"]?.objectValue ?? [:] {
            lines.append("\(field) was: \(Self.shown(text["before"]))")
            lines.append("\(field) now: \(Self.shown(text["after"]))")
        }
        for place in diff?["paths"]?.arrayValue ?? [] {
            lines.append("\(place["path"]?.stringValue ?? "?") \(place["change"]?.stringValue ?? "changed")")
        }
        if let more = diff?["morePaths"]?.intValue, more > 0 { lines.append("and \(more) more places") }
        return lines
    }

    private static func shown(_ text: JSONValue?) -> String {
        guard let string = text?.stringValue else { return "(none)" }
        return JSONValue.string(string).jsonText
    }
}
