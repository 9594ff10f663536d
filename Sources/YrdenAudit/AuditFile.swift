import Glibc

/// A failure to open, write or rotate the audit trail's file: the errno's text and the path.
package struct AuditFileError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }

    init(_ action: String, _ path: String, errno code: Int32) {
        message = "cannot \(action) \(path): \(String(cString: strerror(code))) (errno \(code))"
    }
}

/// The audit trail's files: the current one (`path`, appended to) and the rotated ones (`path.1` the newest
/// to `path.<keep>`). A line never spans two files: the file is rotated before a line that would take it past
/// `maxBytes`. Mode 0600: the trail names users and what they called.
///
/// Used by one thread only (``AuditTrail``'s writer, or the start before it runs); blocking calls are its job.
struct AuditFile {
    let path: String
    let maxBytes: Int
    let keep: Int
    private var descriptor: Int32 = -1
    /// Bytes in the current file.
    private(set) var size = 0

    init(path: String, maxBytes: Int, keep: Int) {
        self.path = path
        self.maxBytes = maxBytes
        self.keep = keep
    }

    /// Opens the current file (created when missing) and returns the chain to continue: after the last whole
    /// line of the current file, else of the newest rotated one (a stop right after a rotation), else a new one.
    /// A line cut short at the end (a stop in the middle of a write) is ended with a line break first, so it
    /// stays a line of its own that ``AuditVerifier`` reports, and the chain goes on from the line before it.
    mutating func open() throws(AuditFileError) -> AuditChain {
        try reopen()
        let tail = try Self.tail(of: descriptor, size: size, path: path)
        if let last = tail.last, last != UInt8(ascii: "\n") {
            try write([UInt8(ascii: "\n")])
        }
        if let chain = Self.lastChain(in: tail) { return chain }
        let rotated = Self.open(path + ".1", O_RDONLY)
        guard rotated >= 0 else { return AuditChain() }
        defer { Glibc.close(rotated) }
        var status = stat()
        guard fstat(rotated, &status) == 0 else { return AuditChain() }
        let rotatedTail = (try? Self.tail(of: rotated, size: Int(status.st_size), path: path + ".1")) ?? []
        return Self.lastChain(in: rotatedTail) ?? AuditChain()
    }

    /// Appends `lines` (each with its line break), rotating before any line that would take the file past
    /// `maxBytes`. Throws after the lines before the failure were written: the caller counts the rest as lost.
    mutating func append(_ lines: [[UInt8]]) throws(AuditFileError) {
        if descriptor < 0 { try reopen() }
        var pending: [UInt8] = []
        for line in lines {
            if size + pending.count > 0, size + pending.count + line.count > maxBytes {
                try write(pending)
                pending.removeAll(keepingCapacity: true)
                try rotate()
            }
            pending += line
        }
        try write(pending)
    }

    /// Closes the file (synced: it is done), shifts `path.N` to `path.N+1` (the oldest past `keep` goes), and
    /// starts an empty current file.
    mutating func rotate() throws(AuditFileError) {
        if descriptor >= 0 {
            _ = fsync(descriptor)
            Glibc.close(descriptor)
            descriptor = -1
        }
        unlink("\(path).\(keep)")
        if keep > 1 {
            for index in stride(from: keep - 1, through: 1, by: -1) {
                _ = rename("\(path).\(index)", "\(path).\(index + 1)")
            }
        }
        guard rename(path, "\(path).1") == 0 || errno == ENOENT else {
            throw AuditFileError("rotate", path, errno: errno)
        }
        try reopen()
    }

    /// Ends the file's use: synced and closed.
    mutating func close() {
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        Glibc.close(descriptor)
        descriptor = -1
    }

    private mutating func reopen() throws(AuditFileError) {
        let opened = Self.open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard opened >= 0 else { throw AuditFileError("open", path, errno: errno) }
        var status = stat()
        guard fstat(opened, &status) == 0 else {
            let code = errno
            Glibc.close(opened)
            throw AuditFileError("read the size of", path, errno: code)
        }
        descriptor = opened
        size = Int(status.st_size)
    }

    private mutating func write(_ bytes: [UInt8]) throws(AuditFileError) {
        var offset = 0
        let failure: Int32? = bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return written < 0 ? errno : EIO
                }
            }
            return nil
        }
        size += offset
        if let failure {
            // Reopened for the next batch: the file may have been moved or the disk freed meanwhile.
            Glibc.close(descriptor)
            descriptor = -1
            throw AuditFileError("write", path, errno: failure)
        }
    }

    /// The last 64 KiB of a file (a trail's line is a few hundred bytes; its fields are capped).
    private static func tail(of descriptor: Int32, size: Int, path: String) throws(AuditFileError) -> [UInt8] {
        let count = min(size, 64 << 10)
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var read = 0
        while read < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + read, count - read, off_t(size - count + read))
            }
            if got > 0 {
                read += got
            } else if got < 0, errno == EINTR {
                continue
            } else if got == 0 {
                break
            } else {
                throw AuditFileError("read", path, errno: errno)
            }
        }
        return Array(bytes[..<read])
    }

    /// The chain after the last whole line of `tail`; `nil` when it has none that belongs to a trail.
    private static func lastChain(in tail: [UInt8]) -> AuditChain? {
        var end = tail.endIndex
        // A piece after the last line break is a line cut short: skip it.
        guard let lastBreak = tail.lastIndex(of: UInt8(ascii: "\n")) else { return nil }
        end = lastBreak
        let start = tail[..<end].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? tail.startIndex
        return AuditChain(continuingAfter: tail[start..<end])
    }

    private static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        while true {
            let descriptor = Glibc.open(path, flags, mode)
            if descriptor >= 0 || errno != EINTR { return descriptor }
        }
    }
}
