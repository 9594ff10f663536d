import Testing

@testable import YrdenSearch

/// A need worded unlike every tool still finds the tool that serves it: through related words (a meeting is a
/// calendar event), words that begin alike, words an identifier joins, and as a last resort weak matches marked
/// as such. An agent told "no tool matches" gives up on a tool that exists.
@Suite struct FallbackTests {
    /// A profile's worth of tools as their servers describe them; none says "schedule", "meeting", "remind",
    /// "build" or "green".
    private let index = makeIndex([
        (
            "calendar",
            [
                tool("calendar", "create_event", "Create a calendar event", arguments: ["title", "start", "end"]),
                tool("calendar", "list_events", "List upcoming calendar events", arguments: ["from", "to"]),
            ]
        ),
        (
            "tasks",
            [
                tool("tasks", "add_todo", "Add an item to the todo list", arguments: ["text", "due"]),
                tool("tasks", "complete_todo", "Mark a todo item as done", arguments: ["id"]),
            ]
        ),
        (
            "ci",
            [
                tool("ci", "ci_status", "Get the CI status of a branch", arguments: ["branch"]),
                tool("ci", "rerun_job", "Retry a failed job", arguments: ["job"]),
            ]
        ),
        (
            "files",
            [
                tool("files", "read_file", "Read a file from disk", arguments: ["path"]),
                tool("files", "write_file", "Write text to a file", arguments: ["path", "content"]),
            ]
        ),
        ("mail", [tool("mail", "send_email", "Send an email message", arguments: ["to", "subject", "body"])]),
        ("browser", [tool("browser", "evaluate", "Run JavaScript in the page", arguments: ["script"])]),
        ("notify", [tool("notify", "push", "Send a push notification to a device", arguments: ["device"])]),
    ])

    @Test(arguments: [
        ("schedule a meeting with Alice tomorrow", "calendar/create_event"),
        ("remind me to buy milk on Friday", "tasks/add_todo"),
        ("is the build on main green?", "ci/ci_status"),
    ])
    func plainNeedsFindTheToolThatServesThem(_ need: String, _ wanted: String) {
        let found = index.searchOrNearest(need, limit: 5)
        #expect(!found.weak)
        #expect(found.hits.prefix(3).map(\.key.description).contains(wanted), "\(found.hits.map(\.key))")
    }

    @Test func aWordAnIdentifierSplitsFindsItWhole() {
        #expect(index.names("run some javascript", limit: 1) == ["browser/evaluate"])
    }

    @Test func aWordTheIndexLacksFindsTheWordsThatBeginLikeIt() {
        #expect(index.names("notify my phone", limit: 1) == ["notify/push"])
        #expect(index.names("calender", limit: 1) == ["calendar/create_event"])
    }

    @Test func aCodeIsNotWidened() {
        #expect(index.names("file2").isEmpty)
    }

    @Test func withNoMatchTheProfilesNearestToolsComeBackMarkedWeak() {
        let onlyTasks: (ToolKey) -> Bool = { $0.server == "tasks" }
        #expect(index.search("todos list", limit: 5, where: { $0.server == "files" }).isEmpty)
        let strict = index.searchOrNearest("list", limit: 5, where: onlyTasks)
        #expect(!strict.weak && strict.hits.first?.key.name == "add_todo")
        let weak = index.searchOrNearest("listing events", limit: 5, where: { $0.server == "calendar" })
        #expect(!weak.weak, "a word the profile has is a match, not a weak one")
        let widened = index.searchOrNearest("calendars", limit: 5, where: onlyTasks)
        #expect(widened.weak && widened.hits.isEmpty, "nothing of the profile begins like it")
        let renders = makeIndex([
            ("a", [tool("a", "render", "Render a template")]),
            ("b", [tool("b", "restart", "Restart the renderer"), tool("b", "logs", "Show the service's logs")]),
        ])
        #expect(renders.search("render now", limit: 5, where: { $0.server == "b" }).isEmpty)
        let nearest = renders.searchOrNearest("render now", limit: 5, where: { $0.server == "b" })
        #expect(nearest.weak && nearest.hits.map(\.key.name) == ["restart"])
    }

    @Test func aQueryOfStopWordsIsNoMatch() {
        let found = index.searchOrNearest("what can you do for me", limit: 5)
        #expect(found.hits.isEmpty && found.weak)
    }
}
