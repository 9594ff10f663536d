import Testing

@testable import YrdenProtocol

@Suite struct QualifiedNameTests {
    @Test func plainNamesArePrefixed() {
        #expect(
            QualifiedName.make(prefix: "time", separator: "__", name: "get_current_time") == "time__get_current_time"
        )
    }

    @Test func longNamesAreCutToTheLimitWithAStableHash() {
        let long = String(repeating: "x", count: 100)
        let name = QualifiedName.make(prefix: "server", separator: "__", name: long)
        #expect(name.count == QualifiedName.maxLength)
        #expect(QualifiedName.isValid(name))
        #expect(name == QualifiedName.make(prefix: "server", separator: "__", name: long))
        #expect(name.hasSuffix("_" + QualifiedName.stableHash("server__" + long)))
    }

    @Test func namesThatOnlyDifferInTheTailStayDistinct() {
        let base = String(repeating: "y", count: 90)
        let a = QualifiedName.make(prefix: "s", separator: "__", name: base + "a")
        let b = QualifiedName.make(prefix: "s", separator: "__", name: base + "b")
        #expect(a != b)
    }

    @Test func disallowedCharactersAreReplacedAndHashed() {
        let name = QualifiedName.make(prefix: "fs", separator: "__", name: "read file/now")
        #expect(QualifiedName.isValid(name))
        #expect(name.hasPrefix("fs__read_file_now_"))
        #expect(name != QualifiedName.make(prefix: "fs", separator: "__", name: "read_file_now"))
    }

    /// What hosts enforce: `^[a-zA-Z0-9_-]{1,64}$`; a dot (which MCP allows) is replaced, and the name hashed.
    @Test func dotsAreNotPublicNames() {
        #expect(!QualifiedName.isValid("git.status"))
        let name = QualifiedName.make(prefix: "git", separator: "__", name: "repo.status")
        #expect(name.hasPrefix("git__repo_status_"))
        #expect(
            name.utf8.allSatisfy {
                $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || (48...57).contains($0) || (65...90).contains($0)
                    || (97...122).contains($0)
            }
        )
    }

    @Test func stableHashIsKnownFNV1a() {
        #expect(QualifiedName.stableHash("") == "811c9dc5")
        #expect(QualifiedName.stableHash("a") == "e40c292c")
    }

    @Test func versionNegotiation() {
        #expect(ProtocolVersion.negotiate(requested: "2025-06-18") == "2025-06-18")
        #expect(ProtocolVersion.negotiate(requested: "2024-11-05") == "2024-11-05")
        #expect(ProtocolVersion.negotiate(requested: "2099-01-01") == ProtocolVersion.latest)
        #expect(ProtocolVersion.negotiate(requested: nil) == ProtocolVersion.latest)
        #expect(ProtocolVersion.allowsBatches("2025-03-26"))
        #expect(!ProtocolVersion.allowsBatches("2025-06-18"))
    }
}
