import Testing
import YrdenProtocol

@testable import YrdenResourceAuth

/// JOSE's unpadded base64url, read in one pass: what it decodes and what it refuses.
@Suite struct Base64URLTests {
    @Test func itDecodesWhatBase64EncodesWithTheURLAlphabetAndNoPadding() {
        var bytes: [UInt8] = []
        for length in 0..<70 {
            let encoded = Base64.encode(bytes, urlSafe: true).replacing("=", with: "")
            #expect(Base64.decode(url: encoded[...]) == bytes, "\(length) bytes")
            bytes.append(UInt8(truncatingIfNeeded: length &* 37 &+ 250))
        }
        #expect(Base64.decode(url: "-_8"[...]) == [0xFB, 0xFF])
    }

    @Test(arguments: ["a+b_", "a/b_", "YQ==", "abcde", "ab c", "ab.c", "aé"])
    func itRefusesWhatIsNotUnpaddedBase64URL(_ text: String) {
        #expect(Base64.decode(url: text[...]) == nil)
    }
}
