/// How a tool or prompt of one upstream is named on the aggregated endpoint: `<prefix><separator><name>`.
///
/// Names keep to `^[a-zA-Z0-9_-]{1,64}$`, what hosts enforce (several reject `.` and anything longer, though
/// MCP itself allows more). A name that needs changing to fit
/// gets a short hash of the original, so two different upstream names never collapse into one and the same
/// input gives the same name on every run. Calls are routed by table lookup, never by splitting the name.
package enum QualifiedName {
    package static let maxLength = 64

    package static func make(prefix: String, separator: String, name: String) -> String {
        let raw = prefix + separator + name
        if isValid(raw) { return raw }
        let cleaned = String(raw.unicodeScalars.map { isAllowed($0) ? Character($0) : "_" })
        let suffix = "_" + stableHash(raw)
        return String(cleaned.prefix(maxLength - suffix.count)) + suffix
    }

    /// Whether a name may be shown as it is. Checked on its bytes: every allowed character is ASCII.
    package static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxLength && name.utf8.allSatisfy(isAllowed)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && isAllowed(UInt8(scalar.value))
    }

    /// 8 hex digits of 32-bit FNV-1a over the UTF-8 bytes: tiny, stable across processes and platforms
    /// (unlike `Hasher`, which is seeded per process).
    package static func stableHash(_ text: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
