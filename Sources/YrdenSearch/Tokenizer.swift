/// Turns text into the words and terms the index compares.
///
/// Words are runs of letters and digits, split again where identifiers join words (`list_directory`,
/// `getFileContents`, `git-log`, `HTMLParser`, but not `IDs` or `base64`), lowercased. Terms are words with the
/// stop words left out and a light English stemmer applied (``Stemmer``), so "files" finds "file" and
/// "searching" finds "search". Text in scripts without spaces (Chinese, Japanese) becomes one long word and is
/// dropped by ``SearchLimits/wordCharacters``: the ranking is for English tool descriptions.
///
/// Works on UTF-8 bytes, and on Unicode scalars only for text that is not all ASCII: indexing a server's tools
/// is mostly this, and it must stay well inside the time a catalog update may take.
enum Tokenizer {
    /// Calls `body` with each index term of `text`, in order, repeats included (term frequency counts them).
    static func forEachTerm(_ text: Substring.UnicodeScalarView, _ body: (String) -> Void) {
        var scratch: [UInt8] = []
        forEachWord(text) { word in
            if let term = Stemmer.term(word, scratch: &scratch) { body(term) }
        }
    }

    /// The index terms of `text`, in order, repeats included.
    static func terms(_ text: Substring.UnicodeScalarView) -> [String] {
        var terms: [String] = []
        forEachTerm(text) { terms.append($0) }
        return terms
    }

    /// The lowercased words of `text` joined by one space: how a name and a query are compared whole, so that
    /// `read_file`, `readFile` and "read file" are the same name.
    static func nameKey(_ text: Substring.UnicodeScalarView) -> String {
        var key: [UInt8] = []
        forEachWord(text) { word in
            if !key.isEmpty { key.append(UInt8(ascii: " ")) }
            key.append(contentsOf: word)
        }
        return String(decoding: key, as: UTF8.self)
    }

    /// Calls `body` with the lowercased UTF-8 of each word of `text`, longest words
    /// (``SearchLimits/wordCharacters``) dropped.
    static func forEachWord(_ text: Substring.UnicodeScalarView, _ body: (ArraySlice<UInt8>) -> Void) {
        let done = Substring(text).utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return false }
            asciiWords(bytes, body)
            return true
        }
        guard done != true else { return }
        var run = WordRun()
        for scalar in text {
            let kind = ScalarClass(scalar)
            if kind == .separator {
                run.flush(body)
            } else if scalar.isASCII {
                run.append(kind, UInt8(scalar.value) + (kind == .upper ? 0x20 : 0))
            } else {
                run.append(kind, scalar.properties.lowercaseMapping.utf8)
            }
        }
        run.flush(body)
    }

    /// The words of ASCII text, read in place: the common case, kept free of per-character bookkeeping.
    private static func asciiWords(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (ArraySlice<UInt8>) -> Void) {
        var word: [UInt8] = []
        word.reserveCapacity(SearchLimits.wordCharacters)
        func emit(_ start: Int, _ end: Int) {
            guard end - start <= SearchLimits.wordCharacters else { return }
            word.removeAll(keepingCapacity: true)
            for index in start..<end {
                let byte = bytes[index]
                word.append(ScalarClass(ascii: byte) == .upper ? byte + 0x20 : byte)
            }
            body(word[...])
        }
        var index = 0
        while index < bytes.count {
            while index < bytes.count, ScalarClass(ascii: bytes[index]) == .separator { index += 1 }
            let start = index
            var wordStart = index
            while index < bytes.count {
                let kind = ScalarClass(ascii: bytes[index])
                if kind == .separator { break }
                if kind == .upper, index > start,
                    isBoundary(ScalarClass(ascii: bytes[index - 1]), next: index + 1, bytes, index + 1 < bytes.count)
                {
                    emit(wordStart, index)
                    wordStart = index
                }
                index += 1
            }
            if index > wordStart { emit(wordStart, index) }
        }
    }

    /// Whether a word ends before an upper-case letter: after a lower-case letter or a digit (`getFile`,
    /// `v2Data`), or as the last capital of a capital run followed by lower case (`HTMLParser`), unless what
    /// follows is a plural "s" (`IDs`, `URLs`).
    private static func isBoundary(
        _ previous: ScalarClass,
        next: Int,
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ hasNext: Bool
    ) -> Bool {
        if previous == .lower || previous == .digit { return true }
        guard previous == .upper, hasNext, ScalarClass(ascii: bytes[next]) == .lower else { return false }
        let pluralS =
            bytes[next] == UInt8(ascii: "s")
            && (next + 1 == bytes.count || ScalarClass(ascii: bytes[next + 1]) != .lower)
        return !pluralS
    }
}

/// One run of letters and digits: its lowercased UTF-8, and each character's class and first byte.
private struct WordRun {
    var bytes: [UInt8] = []
    var classes: [ScalarClass] = []
    var offsets: [Int] = []

    mutating func append(_ kind: ScalarClass, _ byte: UInt8) {
        offsets.append(bytes.count)
        classes.append(kind)
        bytes.append(byte)
    }

    mutating func append(_ kind: ScalarClass, _ lowercased: some Sequence<UInt8>) {
        offsets.append(bytes.count)
        classes.append(kind)
        bytes.append(contentsOf: lowercased)
    }

    /// Emits the run's words and empties it. A word ends before an upper-case letter that follows a lower-case
    /// letter or a digit (`getFile`, `v2Data`), and before the last capital of a capital run that starts a word
    /// (`HTMLParser`), unless what follows is a plural "s" (`IDs`, `URLs`).
    mutating func flush(_ body: (ArraySlice<UInt8>) -> Void) {
        guard !classes.isEmpty else { return }
        var start = 0
        for index in 1..<classes.count where classes[index] == .upper {
            let previous = classes[index - 1]
            let boundary: Bool
            if previous == .lower || previous == .digit {
                boundary = true
            } else if previous == .upper, index + 1 < classes.count, classes[index + 1] == .lower {
                let pluralS =
                    bytes[offsets[index + 1]] == UInt8(ascii: "s")
                    && (index + 2 == classes.count || classes[index + 2] != .lower)
                boundary = !pluralS
            } else {
                boundary = false
            }
            if boundary {
                emit(start, index, body)
                start = index
            }
        }
        emit(start, classes.count, body)
        bytes.removeAll(keepingCapacity: true)
        classes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
    }

    private func emit(_ start: Int, _ end: Int, _ body: (ArraySlice<UInt8>) -> Void) {
        guard end - start <= SearchLimits.wordCharacters else { return }
        body(bytes[offsets[start]..<(end < offsets.count ? offsets[end] : bytes.count)])
    }
}

/// What a character is to the tokenizer: ASCII decided by range, the rest by Unicode properties.
enum ScalarClass: Equatable {
    case lower
    case upper
    case digit
    case separator

    init(ascii byte: UInt8) {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): self = .lower
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): self = .upper
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self = .digit
        default: self = .separator
        }
    }

    init(_ scalar: Unicode.Scalar) {
        if scalar.isASCII {
            self.init(ascii: UInt8(scalar.value))
            return
        }
        let properties = scalar.properties
        if properties.isUppercase {
            self = .upper
        } else if properties.isAlphabetic {
            self = .lower
        } else if properties.numericType != nil {
            self = .digit
        } else {
            self = .separator
        }
    }
}
