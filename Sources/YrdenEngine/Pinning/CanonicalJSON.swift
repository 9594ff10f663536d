import Crypto
import YrdenProtocol

/// JSON with the keys of every object sorted and no whitespace, and its SHA-256: equal values give equal
/// bytes whatever order a peer wrote their keys in, which is what comparing arguments or tool definitions
/// by digest needs. (A key written twice counts once, with the value a lookup sees: the last.)
enum CanonicalJSON {
    /// SHA-256 of `value`'s canonical bytes, lowercase hex.
    static func sha256(_ value: JSONValue) -> String {
        hex(sha256Digest(value))
    }

    /// SHA-256 of `value`'s canonical bytes.
    static func sha256Digest(_ value: JSONValue) -> SHA256.Digest {
        SHA256.hash(data: bytes(value))
    }

    /// SHA-256 of `bytes`, lowercase hex.
    static func sha256(bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    static func bytes(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        write(value, into: &bytes)
        return bytes
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func write(_ value: JSONValue, into bytes: inout [UInt8]) {
        switch value {
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            let keys = Set(object.map(\.key)).sorted()
            for (position, key) in keys.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONValue.string(key).write(into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                write(object[key] ?? .null, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                write(item, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        default:
            value.write(into: &bytes)
        }
    }
}
