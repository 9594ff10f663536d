import Foundation

/// A fresh directory under the system temporary directory, removed by ``remove()``.
struct Scratch {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/yrden-audit-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let created else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: created)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    func read(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: file(name))))
    }

    func write(_ bytes: [UInt8], to name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The lines of `bytes` (without their line breaks).
func lines(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map(Array.init)
}

/// `lines` joined, each with its line break.
func joined(_ lines: [[UInt8]]) -> [UInt8] {
    lines.flatMap { $0 + [UInt8(ascii: "\n")] }
}
