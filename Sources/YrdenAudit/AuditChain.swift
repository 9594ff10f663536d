import Crypto
import YrdenProtocol

/// The hash chain that makes an audit trail tamper-evident: every line carries its number in the trail
/// (`seq`, from 1, continued across rotated files and restarts) and the SHA-256 of the line before it, as
/// written (`prev`; the first line of a trail has ``genesis``). A line edited, removed or moved breaks the
/// link of the line after it; ``AuditVerifier`` says where.
///
/// What the chain cannot show is a trail cut short at its end (the last lines removed, or the last one
/// edited): nothing after them carries their hash. Pure: no I/O.
package struct AuditChain: Sendable, Hashable {
    /// The `prev` of a trail's first line.
    package static let genesis = String(repeating: "0", count: 64)

    /// The `seq` of the last line linked; 0 before the first.
    package private(set) var seq: Int64
    /// The hash of the last line linked (``genesis`` before the first).
    package private(set) var lastHash: String

    /// A new trail.
    package init() {
        seq = 0
        lastHash = Self.genesis
    }

    /// The chain of a trail whose last line is `line` (without its line break): what comes next continues it.
    /// `nil` when the line is not one of a trail (no `seq`).
    package init?(continuingAfter line: some Collection<UInt8>) {
        guard let value = try? JSONValue.parse(line), let seq = value["seq"]?.intValue, seq > 0 else { return nil }
        self.seq = Int64(seq)
        lastHash = Self.hash(line)
    }

    /// The line for `record` (without its line break): `seq` first, then the record's fields, then `prev`.
    /// The chain moves past it; a caller that fails to write the line keeps the copy it had before instead.
    package mutating func link(_ record: JSONObject) -> [UInt8] {
        seq += 1
        var line = JSONObject()
        line["seq"] = .int(Int(seq))
        for (key, value) in record where key != "seq" && key != "prev" { line[key] = value }
        line["prev"] = .string(lastHash)
        let bytes = JSONValue.object(line).serialized()
        lastHash = Self.hash(bytes)
        return bytes
    }

    /// SHA-256 of `bytes`, lowercase hex.
    package static func hash(_ bytes: some Collection<UInt8>) -> String {
        hex(SHA256.hash(data: Array(bytes)))
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
