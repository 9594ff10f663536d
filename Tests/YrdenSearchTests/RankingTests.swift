import Testing

@testable import YrdenSearch

/// BM25F's basic promises, each on a corpus small enough to see why.
@Suite struct RankingTests {
    @Test func aNameMatchOutranksADescriptionMatch() {
        let index = makeIndex([
            ("s", [tool("s", "archive", "Packs the files of a directory; can also search them")]),
            ("t", [tool("t", "search_files", "Finds paths under a directory")]),
        ])
        #expect(index.names("search files") == ["t/search_files", "s/archive"])
    }

    @Test func aRareTermCountsMoreThanACommonOne() {
        let common = (0..<8).map { tool("s", "tool\($0)", "Returns data") }
        let index = makeIndex([("s", common + [tool("s", "weather", "Returns the forecast")])])
        #expect(index.names("forecast data", limit: 1) == ["s/weather"])
    }

    @Test func aShorterFieldWithTheSameMatchRanksHigher() {
        let index = makeIndex([
            (
                "s",
                [
                    tool(
                        "s",
                        "long",
                        "Lists the branches of a repository with their heads, authors, dates and messages"
                    ),
                    tool("s", "short", "Lists branches"),
                ]
            )
        ])
        #expect(index.names("branches") == ["s/short", "s/long"])
    }

    @Test func aWordRepeatedAcrossFieldsSaturates() {
        let index = makeIndex([
            (
                "s",
                [
                    tool("s", "echo_back", title: "Echo", "echo echo echo"),
                    tool("s", "repeat", "echo"),
                ]
            )
        ])
        let scores = Dictionary(uniqueKeysWithValues: index.search("echo", limit: 2).map { ($0.key.name, $0.score) })
        let everywhere = scores["echo_back"] ?? 0
        let once = scores["repeat"] ?? 0
        #expect(everywhere > once)
        #expect(everywhere < 2 * once, "five mentions weigh less than two single ones")
    }

    @Test func aQueryThatIsAToolsNameFindsThatToolFirst() {
        let index = makeIndex([
            (
                "filesystem",
                [
                    tool("filesystem", "read_text_file", "Read the complete contents of a file as text"),
                    tool("filesystem", "read_multiple_files", "Read the contents of multiple files"),
                    tool("filesystem", "read_file", "Deprecated"),
                ]
            ),
            ("github", [tool("github", "get_file_contents", "Read a file from a repository")]),
        ])
        #expect(index.names("read_file").first == "filesystem/read_file")
        #expect(index.names("readFile").first == "filesystem/read_file")
        #expect(index.names("filesystem__read_file").first == "filesystem/read_file")
    }

    @Test func aDeprecatedToolRanksBelowItsReplacement() {
        let index = makeIndex([
            (
                "s",
                [
                    tool("s", "read_file", "Read a file. DEPRECATED: use read_text_file"),
                    tool("s", "read_text_file", "Read a file as text, with its encoding"),
                ]
            )
        ])
        #expect(index.names("read a file") == ["s/read_text_file", "s/read_file"])
    }

    @Test func synonymsFindWhatTheDescriptionCallsOtherwise() {
        let index = makeIndex([
            (
                "s",
                [
                    tool("s", "create_directory", "Create a new directory"),
                    tool("s", "write_file", "Write a new file"),
                ]
            )
        ])
        #expect(index.names("make a folder") == ["s/create_directory"])
        #expect(index.search("directory", limit: 1)[0].score > index.search("folder", limit: 1)[0].score)
    }

    @Test func argumentsAndTheServerNameAreSearchedToo() {
        let index = makeIndex([
            ("slack", [tool("slack", "post_message", "Post a message", arguments: ["channel_id", "text"])]),
            (
                "email",
                [
                    tool(
                        "email",
                        "send",
                        "Send a message",
                        arguments: ["recipient"],
                        argumentDescriptions: ["recipient": "The address to deliver to"]
                    )
                ]
            ),
        ])
        #expect(index.names("message in a channel").first == "slack/post_message")
        #expect(index.names("slack message").first == "slack/post_message")
        #expect(index.names("deliver a message").first == "email/send")
    }

    @Test func emptyAndStopWordQueriesFindNothing() {
        let index = makeIndex([("s", [tool("s", "the_tool", "What it is for")])])
        #expect(index.names("").isEmpty)
        #expect(index.names("  -- ?? ").isEmpty)
        #expect(index.names("what is it for").isEmpty)
        #expect(index.names("zebra").isEmpty)
    }

    @Test func limitIsRespected() {
        let index = makeIndex([("s", (0..<20).map { tool("s", "tool\($0)", "Lists items") })])
        #expect(index.search("items", limit: 5).count == 5)
        #expect(index.search("items", limit: 0).isEmpty)
        #expect(index.search("items", limit: -1).isEmpty)
        #expect(index.search("items", limit: 100).count == 20)
    }
}
