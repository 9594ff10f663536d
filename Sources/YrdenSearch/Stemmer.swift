/// A light English stemmer and stop-word list: enough that a need phrased one way finds a tool described
/// another ("files" and "file", "searching" and "search", "modified" and "modify", "staged" and "stage").
///
/// Deliberately smaller than Porter's: it strips plurals (-s, -es, -ies), -ed, -ied and -ing, undoes the doubled
/// consonant those leave (`committed`), and drops a final "e" so that `create`, `created` and `creating` agree.
/// A stem keeps at least three letters and a vowel, so short words (`gas`, `string`, `need`) stay whole. Words
/// with anything but ASCII letters and digits are kept as they are.
enum Stemmer {
    /// The index term for a lowercased word (UTF-8), or nil when the word carries no meaning for search (a stop
    /// word, a single character). `scratch` is reused between calls.
    static func term(_ word: ArraySlice<UInt8>, scratch: inout [UInt8]) -> String? {
        guard word.count > 1 else { return nil }
        if word.count <= 8, stopWordKeys.contains(packed(word)) { return nil }
        guard word.allSatisfy({ isLetter($0) || isDigit($0) }) else { return String(decoding: word, as: UTF8.self) }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: word)
        stem(&scratch)
        return String(decoding: scratch, as: UTF8.self)
    }

    /// Plurals first, then -ed/-ing, then a final "e": `settings` becomes `set` like `setting`.
    static func stem(_ word: inout [UInt8]) {
        if strip(&word, "ies", keeping: 2) {
            word.append(UInt8(ascii: "y"))
        } else if endsWithSibilant(word, before: 2), strip(&word, "es", keeping: 3) {
            // matches, indexes, addresses, branches: the "e" belongs to the plural
        } else if !ends(word, "ss"), !ends(word, "us"), !ends(word, "is") {
            _ = strip(&word, "s", keeping: 3)
        }
        if strip(&word, "ied", keeping: 2) {
            word.append(UInt8(ascii: "y"))
        } else if !ends(word, "eed"), strip(&word, "ed", keeping: 3) || strip(&word, "ing", keeping: 3) {
            undouble(&word)
        }
        if word.count > 3, word.last == UInt8(ascii: "e"), word[word.count - 2] != UInt8(ascii: "e") {
            word.removeLast()
        }
    }

    /// Removes `suffix` when what remains has at least `keeping` characters and a vowel.
    private static func strip(_ word: inout [UInt8], _ suffix: StaticString, keeping: Int) -> Bool {
        let count = suffix.utf8CodeUnitCount
        guard word.count - count >= keeping, ends(word, suffix) else { return false }
        guard word[..<(word.count - count)].contains(where: isVowel) else { return false }
        word.removeLast(count)
        return true
    }

    private static func ends(_ word: [UInt8], _ suffix: StaticString) -> Bool {
        suffix.withUTF8Buffer { suffix in
            guard word.count >= suffix.count else { return false }
            let base = word.count - suffix.count
            for index in 0..<suffix.count where word[base + index] != suffix[index] { return false }
            return true
        }
    }

    /// Whether the letters before the last `count` are s, x, z, ch or sh (where a plural takes "es").
    private static func endsWithSibilant(_ word: [UInt8], before count: Int) -> Bool {
        guard ends(word, "es"), word.count > count + 1 else { return false }
        let last = word[word.count - count - 1]
        if last == UInt8(ascii: "s") || last == UInt8(ascii: "x") || last == UInt8(ascii: "z") { return true }
        let previous = word[word.count - count - 2]
        return last == UInt8(ascii: "h") && (previous == UInt8(ascii: "c") || previous == UInt8(ascii: "s"))
    }

    /// `committ` to `commit`, `runn` to `run`; not `fill`, `pass`, `buzz`, nor a stem that would fall under three.
    private static func undouble(_ word: inout [UInt8]) {
        guard word.count > 3, let last = word.last, last == word[word.count - 2], !isVowel(last) else { return }
        guard last != UInt8(ascii: "l"), last != UInt8(ascii: "s"), last != UInt8(ascii: "z") else { return }
        word.removeLast()
    }

    private static func isVowel(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"),
            UInt8(ascii: "y"):
            true
        default: false
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Words that say nothing about which tool is meant: articles, pronouns, auxiliaries, the commonest
    /// prepositions, and the politeness of a request. Kept small: "not", "all", "new" and "get" can matter.
    static let stopWords: Set<String> = [
        "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into",
        "as", "is", "are", "was", "were", "be", "been", "being", "am", "it", "its", "this", "that", "these",
        "those", "there", "here", "i", "me", "my", "we", "us", "our", "you", "your", "he", "she", "they",
        "them", "their", "his", "her", "what", "which", "who", "whom", "how", "when", "where", "why", "do",
        "does", "did", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "please",
        "some", "so", "then", "than", "if", "about", "via", "up", "let", "want", "need", "e", "g", "eg", "ie",
    ]

    /// The stop words packed as ``packed(_:)``, so a word is checked without making a string of it.
    private static let stopWordKeys = Set(stopWords.map { packed(Array($0.utf8)[...]) })

    /// Up to eight bytes in one integer, one byte per position: equal integers, equal words of that length.
    private static func packed(_ word: ArraySlice<UInt8>) -> UInt64 {
        word.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
