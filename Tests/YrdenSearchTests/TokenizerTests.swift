import Testing

@testable import YrdenSearch

@Suite struct TokenizerTests {
    private func words(_ text: String) -> [String] {
        var words: [String] = []
        Tokenizer.forEachWord(Substring(text).unicodeScalars) { words.append(String(decoding: $0, as: UTF8.self)) }
        return words
    }

    private func terms(_ text: String) -> [String] { Tokenizer.terms(Substring(text).unicodeScalars) }

    @Test func identifiersSplitIntoTheirWords() {
        #expect(words("list_directory") == ["list", "directory"])
        #expect(words("getFileContents") == ["get", "file", "contents"])
        #expect(words("git-log") == ["git", "log"])
        #expect(words("maps.search_places") == ["maps", "search", "places"])
        #expect(words("HTMLParser parseJSONBody") == ["html", "parser", "parse", "json", "body"])
        #expect(words("v2Data") == ["v2", "data"])
    }

    @Test func pluralCapitalsAndDigitsStayWhole() {
        #expect(words("IDs and URLs") == ["ids", "and", "urls"])
        #expect(words("base64 sha256 3pm") == ["base64", "sha256", "3pm"])
    }

    @Test func nonASCIITextIsLowercasedAndSplitTheSameWay() {
        #expect(words("Ñandú ÉcoleNormale") == ["ñandú", "école", "normale"])
        #expect(words("naïve—résumé") == ["naïve", "résumé"])
    }

    @Test func wordsLongerThanTheBoundAreDropped() {
        let long = String(repeating: "x", count: SearchLimits.wordCharacters + 1)
        let longest = String(repeating: "y", count: SearchLimits.wordCharacters)
        #expect(words("keep \(long) \(longest)") == ["keep", longest])
    }

    @Test func stopWordsAndSingleCharactersAreNotTerms() {
        #expect(terms("What is the time in a city?") == terms("time city"))
        #expect(terms("time city").count == 2)
        #expect(terms("the of and a to") == [])
        #expect(terms("x y z") == [])
    }

    @Test func inflectionsMeetTheirStem() {
        let pairs = [
            ("files", "file"), ("searching", "search"), ("searches", "search"), ("modified", "modify"),
            ("created", "create"), ("creating", "create"), ("branches", "branch"), ("queries", "query"),
            ("committed", "commit"), ("settings", "setting"), ("addresses", "address"), ("staged", "stage"),
            ("directories", "directory"), ("running", "run"), ("changes", "changing"), ("uses", "use"),
        ]
        for (inflected, base) in pairs {
            #expect(terms(inflected) == terms(base), "\(inflected) and \(base)")
        }
    }

    @Test func shortAndUninflectedWordsAreLeftAlone() {
        for word in ["status", "string", "process", "analysis", "gas", "added", "fill", "speed"] {
            #expect(terms(word).count == 1, "\(word)")
        }
        #expect(terms("status") == ["status"])
        #expect(terms("string") == ["string"])
        #expect(terms("added") == terms("add"))
    }

    @Test func aNameIsTheSameKeyHoweverItIsWritten() {
        let key = Tokenizer.nameKey(Substring("read_file").unicodeScalars)
        #expect(key == "read file")
        #expect(Tokenizer.nameKey(Substring("readFile").unicodeScalars) == key)
        #expect(Tokenizer.nameKey(Substring("Read File").unicodeScalars) == key)
        #expect(Tokenizer.nameKey(Substring("read-file!").unicodeScalars) == key)
    }
}
