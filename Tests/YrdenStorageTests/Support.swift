import Foundation
import Synchronization

/// A fresh directory under the system temporary directory, removed by ``remove()``.
struct Scratch {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/yrden-storage-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let created else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: created)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Names in the directory (hidden ones included), sorted.
    func entries(_ subdirectory: String? = nil) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: subdirectory.map(file) ?? path).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The permission bits of `path`, e.g. `0o600`.
func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// 32 fixed key bytes, and their hex and base64 spellings.
enum TestKey {
    static let raw: [UInt8] = (0..<32).map { UInt8($0 * 7 + 3) }
    static let hex = raw.map { String(format: "%02x", $0) }.joined()
    static let base64 = Data(raw).base64EncodedString()
}

/// A boolean shared between tasks.
final class Flag: Sendable {
    let value: Atomic<Bool>

    init(_ initial: Bool) { value = Atomic(initial) }
}
