/// The bounds that keep the index's memory and a search's work proportional to what is useful, whatever an
/// upstream or a client sends.
///
/// Text past a bound is ignored, never rejected: a tool with a 1 MB description is indexed on its first
/// ``descriptionCharacters`` characters and its first ``documentTerms`` distinct terms, so it costs the index at
/// most about 4 KB of postings (16 bytes a term) and that many vocabulary entries, and the whole index at most
/// ``documents`` times that. A real tool has 10 to 150 distinct terms: 10,000 of them take a few megabytes.
/// Lengths count Unicode scalars.
package enum SearchLimits {
    /// Documents the index holds (five times the 10,000 tools the budgets are measured on); `replace` indexes a
    /// server's tools in the order given until this is reached.
    package static let documents = 50_000
    /// Distinct terms indexed per tool, in field order (name, server, title, description, arguments); a term
    /// already counted still counts again. The longest reference tool has 143.
    package static let documentTerms = 256
    /// A query's text past this is ignored.
    package static let queryCharacters = 1_000
    /// Distinct query terms looked up; further terms are ignored.
    package static let queryTerms = 64
    /// Results one search returns at most, whatever `limit` asks.
    package static let results = 200
    /// Terms of one four-byte beginning read when looking for a query word's partial matches (``PartialTerms``),
    /// and how many of them are searched for. Real vocabularies have a few dozen words per beginning; a list made
    /// longer by a hostile upstream is read only this far.
    package static let partialCandidates = 512
    package static let partialMatches = 8

    /// Name and title text indexed (the tool keeps its full name as its key).
    package static let nameCharacters = 256
    package static let titleCharacters = 256
    package static let serverCharacters = 256
    /// Description text indexed: enough for every real tool's description seen, a bound for a hostile one.
    package static let descriptionCharacters = 4_096
    /// Schema properties indexed per tool, and the text of each one's name and description.
    package static let arguments = 64
    package static let argumentNameCharacters = 64
    package static let argumentDescriptionCharacters = 256

    /// A word longer than this is dropped: no useful word is, and hashes, base64 and URLs' innards are not worth
    /// a vocabulary entry.
    package static let wordCharacters = 40

    /// The first `count` Unicode scalars of `text`, reading no further than that.
    static func prefix(_ text: String, _ count: Int) -> Substring.UnicodeScalarView {
        let scalars = text.unicodeScalars
        if text.utf8.count <= count { return scalars[...] }  // no more scalars than bytes: nothing to cut
        let end = scalars.index(scalars.startIndex, offsetBy: count, limitedBy: scalars.endIndex) ?? scalars.endIndex
        return scalars[..<end]
    }
}
