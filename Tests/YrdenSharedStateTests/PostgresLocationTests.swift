import Testing

@testable import YrdenSharedState

/// The store's URL taken apart: every part, escapes in the password, IPv6, `sslmode`, and a wrong URL told
/// which part is wrong without repeating the URL (it holds the password).
@Suite struct PostgresLocationTests {
    @Test func everyPartIsRead() throws {
        let location = try PostgresLocation(url: "postgres://yrden:pw@db.internal:6432/team?sslmode=require")
        #expect(location.host == "db.internal" && location.port == 6432)
        #expect(location.user == "yrden" && location.password == "pw" && location.database == "team")
        #expect(location.tls == .require)
        #expect(location.description == "db.internal:6432/team")
    }

    @Test func thePortDefaultsAndTLSIsPreferredAsWithLibpq() throws {
        let location = try PostgresLocation(url: "postgresql://yrden@db/team")
        #expect(location.port == 5432 && location.password == nil && location.tls == .prefer)
    }

    @Test func aPasswordMayHoldEscapedSeparators() throws {
        #expect(try PostgresLocation(url: "postgres://u:p%40ss%3Aw%2Fd@h/d").password == "p@ss:w/d")
        #expect(try PostgresLocation(url: "postgres://u:a@b@h/d").password == "a@b")
    }

    @Test func anIPv6HostIsBracketed() throws {
        let location = try PostgresLocation(url: "postgres://u@[::1]:5433/d")
        #expect(location.host == "::1" && location.port == 5433)
    }

    @Test(arguments: [
        ("mysql://u@h/d", "scheme"),
        ("postgres://h/d", "names no user"),
        ("postgres://u:secret@h", "names no database"),
        ("postgres://u:secret@h:99999/d", "port"),
        ("postgres://u:secret@h/d?sslmode=maybe", "sslmode must be"),
        ("postgres://u:secret@h/d?timeout=3", "only sslmode"),
        ("postgres://u:se%zzcret@h/d", "two hex digits"),
    ])
    func aWrongURLSaysWhichPartAndNeverTheSecret(url: String, says: String) {
        #expect {
            try PostgresLocation(url: url)
        } throws: { error in
            let text = "\(error)"
            return text.contains(says) && !text.contains("secret")
        }
    }
}
