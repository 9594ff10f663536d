#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few system calls storage needs, named apart from the Swift methods that would otherwise shadow them, and
/// retried on `EINTR` so callers see only real failures.
enum POSIX {
    /// The errno text, e.g. `No such file or directory (errno 2)`.
    static func reason(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

    /// A failed system call on `path`: `cannot <action> <path>: <reason>`, with a fix that fits the errno.
    static func failure(_ action: String, _ path: String, errno code: Int32) -> StorageError {
        let fix: String
        switch code {
        case ENOENT: fix = "check that the directory \(directory(of: path)) exists"
        case EACCES, EPERM: fix = "give the user running yrden write access to \(directory(of: path))"
        case EROFS: fix = "point yrden at a writable location (the file system is read-only)"
        case ENOSPC, EDQUOT: fix = "free some disk space"
        case EISDIR: fix = "\(path) is a directory; point at a file path"
        case ENOTDIR: fix = "a component of \(path) is not a directory"
        default: fix = "check the file system holding \(directory(of: path))"
        }
        return StorageError(.system(errno: code), message: "cannot \(action) \(path): \(reason(code))", fix: fix)
    }

    /// The directory part of `path`: `.` for a bare name, `/` for a file at the root.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = path[..<slash]
        return directory.isEmpty ? "/" : String(directory)
    }

    /// The last component of `path`.
    static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `open(2)`, retried on `EINTR`; -1 with `errno` set on failure.
    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
        while true {
            #if canImport(Glibc)
            let descriptor = Glibc.open(path, flags, mode)
            #elseif canImport(Musl)
            let descriptor = Musl.open(path, flags, mode)
            #else
            let descriptor = Darwin.open(path, flags, mode)
            #endif
            if descriptor >= 0 || errno != EINTR { return descriptor }
        }
    }

    /// Writes every byte; false with `errno` set on failure.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                #elseif canImport(Musl)
                let written = Musl.write(descriptor, base + offset, buffer.count - offset)
                #else
                let written = Darwin.write(descriptor, base + offset, buffer.count - offset)
                #endif
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// `read(2)` into `buffer`, retried on `EINTR`.
    static func read(_ descriptor: Int32, into buffer: inout [UInt8]) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                #if canImport(Glibc)
                Glibc.read(descriptor, raw.baseAddress, raw.count)
                #elseif canImport(Musl)
                Musl.read(descriptor, raw.baseAddress, raw.count)
                #else
                Darwin.read(descriptor, raw.baseAddress, raw.count)
                #endif
            }
            if count >= 0 || errno != EINTR { return count }
        }
    }

    /// `fsync(2)`, retried on `EINTR`; false with `errno` set on failure.
    static func sync(_ descriptor: Int32) -> Bool {
        while fsync(descriptor) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }
}
