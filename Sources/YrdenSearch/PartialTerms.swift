/// Words that begin alike: what a query word the index lacks is looked for as, since tools and agents often say
/// one word in two forms the stemmer does not join ("notify" and "notification", "deploy" and "deployment") or
/// join what the tokenizer splits ("javascript" for `JavaScript`'s "java" and "script").
///
/// Only words are widened this way, not codes: a query term with a digit in it (`v2`, `argument64`, an issue
/// number) is looked for as it is. Two terms match when they share their first four bytes and one begins the other, or when their common
/// beginning is at least 60 % of the shorter ("calender" and "calendar"). Looking one word up reads at most
/// ``SearchLimits/partialCandidates`` terms of its four-byte list and keeps the ``SearchLimits/partialMatches``
/// closest, so the work per query word is bounded whatever the vocabulary.
enum PartialTerms {
    /// Whether `term` is a word to widen: no ASCII digit in it.
    static func isWord(_ term: String) -> Bool {
        !term.utf8.contains { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The first four bytes of `term` as one integer, nil for a shorter term (too short to say anything by
    /// its beginning).
    static func key(_ term: String) -> UInt32? {
        var key: UInt32 = 0
        var count = 0
        for byte in term.utf8.prefix(4) {
            key = key << 8 | UInt32(byte)
            count += 1
        }
        return count == 4 ? key : nil
    }

    /// How many leading bytes `term` and `other` share when they match as partial terms, else nil.
    static func overlap(_ term: String, _ other: String) -> Int? {
        var shared = 0
        var a = term.utf8.makeIterator()
        var b = other.utf8.makeIterator()
        while let x = a.next(), let y = b.next(), x == y { shared += 1 }
        let shorter = min(term.utf8.count, other.utf8.count)
        guard shared >= 4, shared == shorter || shared * 10 >= shorter * 6 else { return nil }
        return shared
    }
}

extension ToolSearchIndex {
    /// The two terms of the index that `term` joins, as "javascript" joins `JavaScript`'s "java" and "script"
    /// (identifiers are split where their case changes, and a need writes them as one word), or nil. Each part
    /// has at least three bytes; the first split found from the left wins. At most one lookup per byte.
    func parts(of term: String) -> (UInt32, UInt32)? {
        let bytes = Array(term.utf8)
        guard bytes.count >= 6, bytes.count <= SearchLimits.wordCharacters, PartialTerms.isWord(term) else {
            return nil
        }
        for cut in 3...(bytes.count - 3) {
            guard let left = vocabulary[String(decoding: bytes[..<cut], as: UTF8.self)],
                let right = vocabulary[String(decoding: bytes[cut...], as: UTF8.self)]
            else { continue }
            return (left, right)
        }
        return nil
    }

    /// The terms of the index that partially match `term` (never `term` itself), closest first: the longest
    /// shared beginning, then the nearest length, then alphabetical, so the choice does not depend on the order
    /// terms were added in.
    func partialMatches(of term: String) -> [UInt32] {
        guard PartialTerms.isWord(term), let key = PartialTerms.key(term), let list = partialTerms[key] else {
            return []
        }
        var found: [(id: UInt32, shared: Int, difference: Int, text: String)] = []
        for id in list.prefix(SearchLimits.partialCandidates) {
            let text = termText[Int(id)]
            guard text != term, let shared = PartialTerms.overlap(term, text) else { continue }
            found.append((id, shared, abs(text.utf8.count - term.utf8.count), text))
        }
        found.sort { a, b in
            a.shared != b.shared
                ? a.shared > b.shared : a.difference != b.difference ? a.difference < b.difference : a.text < b.text
        }
        return found.prefix(SearchLimits.partialMatches).map(\.id)
    }
}
