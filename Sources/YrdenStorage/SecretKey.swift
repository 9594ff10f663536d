import Crypto
import FoundationEssentials

/// Turns the `YRDEN_SECRET_KEY` text into a 256-bit AES key.
///
/// - 64 hex digits, or base64 of exactly 32 bytes (what `openssl rand -hex 32` / `-base64 32` print), are the
///   key itself. This is the recommended form: full strength, and other tools can use the same key.
/// - Any other text is a passphrase, stretched to 32 bytes with HKDF-SHA256 under a fixed salt and info that name
///   Yrden. HKDF does not slow down guessing the way a password hash does, so a passphrase is only as strong as
///   its own randomness; it is accepted because operators paste all kinds of secrets, and a long random one is
///   fine. A fixed salt keeps the key the same across restarts and machines without storing anything.
///
/// Surrounding whitespace (a trailing newline from a secrets file) is ignored; text that is empty after that is
/// an error, since it is almost certainly a mistake and would otherwise derive a key anyone can guess.
enum SecretKey {
    static let salt = Array("yrden secret store salt v1".utf8)
    static let info = Array("yrden AES-256-GCM key for stored secrets".utf8)

    static func parse(_ text: String) throws(StorageError) -> SymmetricKey {
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard !trimmed.isEmpty else {
            throw StorageError(
                .invalidKey,
                message: "YRDEN_SECRET_KEY is set but empty",
                fix: "unset it to store secrets unencrypted, or set it to 64 hex digits (openssl rand -hex 32)"
            )
        }
        if let bytes = hexBytes(trimmed), bytes.count == 32 { return SymmetricKey(data: bytes) }
        if let data = Data(base64Encoded: trimmed), data.count == 32 { return SymmetricKey(data: data) }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Array(trimmed.utf8)),
            salt: salt,
            info: info,
            outputByteCount: 32
        )
    }

    /// The bytes `text` spells in hex (either case), or nil when it is not an even run of hex digits.
    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(ofHexDigit: digits[index]), let low = value(ofHexDigit: digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(ofHexDigit digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
