import Testing

@testable import YrdenStorage

@Suite struct SecretBoxTests {
    let token = bytes(#"{"access_token":"gho_s3cr3t-value","refresh_token":"r-123"}"#)

    @Test func sealedBytesHaveTheHeaderAndHideThePlaintext() throws {
        let box = try SecretBox(keyText: TestKey.hex)
        let sealed = try box.seal(token, context: "github")
        #expect(sealed.starts(with: bytes("YRDN") + [1]))
        #expect(sealed.count == 5 + 12 + token.count + 16)
        #expect(!contains(sealed, bytes("gho_s3cr3t")))
        #expect(!contains(sealed, bytes("access_token")))
        #expect(try box.open(sealed, context: "github", source: "f") == token)
    }

    @Test func everySealUsesAFreshNonce() throws {
        let box = try SecretBox(keyText: TestKey.hex)
        #expect(try box.seal(token, context: "a") != box.seal(token, context: "a"))
    }

    @Test func hexAndBase64SpellTheSameKey() throws {
        let sealed = try SecretBox(keyText: TestKey.hex).seal(token, context: "a")
        #expect(try SecretBox(keyText: TestKey.base64).open(sealed, context: "a", source: "f") == token)
        #expect(try SecretBox(keyText: TestKey.hex.uppercased()).open(sealed, context: "a", source: "f") == token)
        #expect(try SecretBox(keyText: " \(TestKey.hex)\n").open(sealed, context: "a", source: "f") == token)
    }

    @Test func passphraseIsDerivedTheSameWayEveryTime() throws {
        let sealed = try SecretBox(keyText: "correct horse battery staple").seal(token, context: "a")
        #expect(try SecretBox(keyText: "correct horse battery staple").open(sealed, context: "a", source: "f") == token)
        // A passphrase is not used as raw bytes: 32 ASCII characters are not the same key as their hex spelling.
        let thirtyTwo = String(repeating: "k", count: 32)
        let hexOfIt = String(repeating: "6b", count: 32)
        let byPassphrase = try SecretBox(keyText: thirtyTwo).seal(token, context: "a")
        #expect(throws: StorageError.self) {
            try SecretBox(keyText: hexOfIt).open(byPassphrase, context: "a", source: "f")
        }
    }

    @Test func wrongKeySaysSo() throws {
        let sealed = try SecretBox(keyText: TestKey.hex).seal(token, context: "a")
        let error = #expect(throws: StorageError.self) {
            try SecretBox(keyText: "another key").open(sealed, context: "a", source: "/data/secrets/a")
        }
        #expect(error?.kind == .cannotDecrypt)
        #expect(error?.message == "cannot decrypt /data/secrets/a: wrong YRDEN_SECRET_KEY or damaged file")
    }

    @Test func truncatedOrAlteredFilesDoNotOpen() throws {
        let box = try SecretBox(keyText: TestKey.hex)
        let sealed = try box.seal(token, context: "a")
        for length in [4, 5, 6, 17, 5 + 12 + 16, sealed.count - 1] {
            let error = #expect(throws: StorageError.self) {
                try box.open(Array(sealed.prefix(length)), context: "a", source: "f")
            }
            #expect(error?.kind == .cannotDecrypt, "length \(length)")
        }
        for index in [6, 20, sealed.count - 1] {
            var altered = sealed
            altered[index] ^= 0x01
            #expect(throws: StorageError.self) { try box.open(altered, context: "a", source: "f") }
        }
    }

    @Test func contextIsBound() throws {
        let box = try SecretBox(keyText: TestKey.hex)
        let sealed = try box.seal(token, context: "github")
        #expect(throws: StorageError.self) { try box.open(sealed, context: "gitlab", source: "f") }
    }

    @Test func unknownVersionIsNamed() throws {
        let box = try SecretBox(keyText: TestKey.hex)
        var sealed = try box.seal(token, context: "a")
        sealed[4] = 2
        let error = #expect(throws: StorageError.self) { try box.open(sealed, context: "a", source: "f") }
        #expect(error?.kind == .unsupportedFormat)
        #expect(error?.message == "f is sealed with format version 2, which this yrden does not know")
    }

    @Test func emptyKeyIsRejected() {
        for text in ["", " ", "\n"] {
            let error = #expect(throws: StorageError.self) { try SecretBox(keyText: text) }
            #expect(error?.kind == .invalidKey)
            #expect(error?.description.contains("YRDEN_SECRET_KEY") == true)
        }
    }

    @Test func hexParsing() {
        #expect(SecretKey.hexBytes("00ff7A") == [0x00, 0xFF, 0x7A])
        #expect(SecretKey.hexBytes("0") == nil)
        #expect(SecretKey.hexBytes("zz") == nil)
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }
}
