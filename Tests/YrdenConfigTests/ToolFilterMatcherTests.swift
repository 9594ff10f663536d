import Testing

@testable import YrdenConfig

/// The compiled filter a profile matches its tools with answers as the filter itself does, for every kind of
/// pattern and name, including the ones its byte-wise path must leave to the `Character` rule.
@Suite struct ToolFilterMatcherTests {
    /// Runs that patterns and names are made of: plain, empty, repeated, overlapping, and the cases where bytes
    /// and `Character`s differ (a combining accent, CR LF, a precomposed letter).
    private static let runs = [
        "", "a", "ab", "aba", "b", "_", "__", "read", "tool_1", "x\r", "\n", "e\u{301}", "\u{E9}", "é", "🙂", "*",
    ]

    private static func names(_ count: Int, _ generator: inout some RandomNumberGenerator) -> [String] {
        (0..<count).map { _ in
            (0..<Int.random(in: 0...4, using: &generator)).map { _ in runs.randomElement(using: &generator)! }
                .joined()
        }
    }

    @Test func answersAsTheFilterDoesForRandomPatternsAndNames() {
        var generator = SplitMix(seed: 26)
        for _ in 0..<300 {
            let allow: [String]? =
                Bool.random(using: &generator) ? nil : Self.names(Int.random(in: 0...4, using: &generator), &generator)
            let filter = ToolFilter(
                allow: allow,
                deny: Self.names(Int.random(in: 0...3, using: &generator), &generator)
            )
            let matcher = ToolFilterMatcher(filter)
            for name in Self.names(40, &generator) {
                #expect(matcher.permits(name) == filter.permits(name), "\(filter) on \(name.debugDescription)")
            }
        }
    }

    @Test func bytesAreComparedOnlyWhereTheyAreCharacters() {
        let cases: [(pattern: String, name: String)] = [
            ("a*", "a\u{301}b"),  // "á" decomposed: its first Character is not "a"
            ("*\r", "x\r\n"),  // CR LF is one Character
            ("x\r*", "x\r\ny"),
            ("*\u{E9}", "cafe\u{301}"),  // canonically equal endings
            ("caf\u{E9}*", "cafe\u{301}s"),
            ("a*a", "a"),  // first and last runs may not overlap
            ("ab*ba", "aba"),
            ("*ab*ab*", "abab"),
            ("**", ""),
            ("a**b", "ab"),
        ]
        for (pattern, name) in cases {
            let filter = ToolFilter(allow: [pattern])
            #expect(ToolFilterMatcher(filter).permits(name) == filter.permits(name), "\(pattern) on \(name)")
        }
    }
}

/// A seeded generator, so a failure names inputs that come back on the next run.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
