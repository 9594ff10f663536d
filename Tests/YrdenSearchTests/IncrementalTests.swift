import Testing

@testable import YrdenSearch

/// Updates never rebuild, and must leave the index as a fresh build of the same tools would be.
@Suite struct IncrementalTests {
    private let queries = [
        "read a file", "list the files in a directory", "create an issue", "search", "post a message",
        "delete the branch", "query the database", "time in tokyo", "files", "git log", "direct", "reposit",
        "timezonal", "channelling",
    ]

    private let filesystem = [
        tool("fs", "read_file", "Read the complete contents of a file", arguments: ["path"]),
        tool("fs", "list_directory", "List the files and directories in a path", arguments: ["path"]),
        tool("fs", "search_files", "Search for files matching a pattern", arguments: ["path", "pattern"]),
    ]
    private let github = [
        tool("gh", "create_issue", "Create a new issue in a repository", arguments: ["owner", "repo", "title"]),
        tool("gh", "search_code", "Search for code across repositories", arguments: ["q"]),
        tool("gh", "delete_branch", "Delete a branch of a repository", arguments: ["owner", "repo", "branch"]),
    ]
    private let githubChanged = [
        tool("gh", "create_issue", "Open an issue on a repository", arguments: ["owner", "repo", "title", "body"]),
        tool("gh", "list_issues", "List the issues of a repository", arguments: ["owner", "repo", "state"]),
    ]
    private let slack = [tool("slack", "post_message", "Post a message to a channel", arguments: ["channel", "text"])]
    private let database = [tool("db", "query", "Run a read-only SQL query on the database", arguments: ["sql"])]
    private let time = [tool("time", "get_current_time", "Get the current time in a timezone")]

    @Test func replacingAndRemovingRanksAsAFreshBuild() {
        var updated = makeIndex([("fs", filesystem), ("gh", github), ("slack", slack), ("db", database)])
        updated.replace(server: "gh", tools: githubChanged)
        updated.remove(server: "slack")
        updated.replace(server: "time", tools: time)
        updated.replace(server: "db", tools: database)

        let fresh = makeIndex([("time", time), ("db", database), ("gh", githubChanged), ("fs", filesystem)])
        #expect(updated.statistics == fresh.statistics)
        for query in queries {
            #expect(updated.search(query, limit: 10) == fresh.search(query, limit: 10), "\(query)")
        }
    }

    @Test func churnRecyclesIdsInsteadOfGrowing() {
        var index = makeIndex([("fs", filesystem), ("gh", github)])
        index.replace(server: "gh", tools: githubChanged)
        index.replace(server: "gh", tools: github)
        let documents = index.documents.count
        let terms = index.termText.count
        for round in 0..<50 {
            index.replace(server: "gh", tools: round.isMultiple(of: 2) ? githubChanged : github)
        }
        index.replace(server: "gh", tools: github)
        #expect(index.documents.count == documents)
        #expect(index.termText.count == terms)
        #expect(index.statistics == makeIndex([("gh", github), ("fs", filesystem)]).statistics)
    }

    @Test func removingEveryServerEmptiesTheIndex() {
        var index = makeIndex([("fs", filesystem), ("gh", github)])
        index.remove(server: "fs")
        index.remove(server: "gh")
        index.remove(server: "never-there")
        #expect(index.count == 0)
        #expect(index.vocabulary.isEmpty)
        #expect(index.nameDocuments.isEmpty)
        #expect(index.partialTerms.isEmpty)
        #expect(index.totalLengths.allSatisfy { $0 == 0 })
        #expect(index.search("read a file", limit: 10).isEmpty)
        #expect(index.servers.isEmpty)
    }

    @Test func replacingWithNothingRemoves() {
        var index = makeIndex([("fs", filesystem), ("gh", github)])
        #expect(index.replace(server: "gh", tools: []) == 0)
        #expect(index.statistics == makeIndex([("fs", filesystem)]).statistics)
        #expect(Array(index.servers) == ["fs"])
    }

    @Test func aToolListedTwiceOrForAnotherServerIsIndexedOnce() {
        var index = ToolSearchIndex()
        let indexed = index.replace(
            server: "fs",
            tools: filesystem + [tool("fs", "read_file", "A second read_file"), tool("gh", "create_issue")]
        )
        #expect(indexed == 3)
        #expect(index.count == 3)
        #expect(index.names("second").isEmpty)
        #expect(index.names("create issue").isEmpty)
    }
}
