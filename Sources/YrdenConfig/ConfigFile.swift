#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a config file with plain POSIX calls, so that a failure can be reported with its errno reason.
///
/// Size is capped: a config is a few kilobytes, and a path that points at a device or a huge file by mistake
/// should fail quickly instead of filling memory.
enum ConfigFile {
    static let maxBytes = 16 * 1024 * 1024

    static func read(path: String) -> Result<[UInt8], Finding> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(failure(path: path, errno: errno)) }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(failure(path: path, errno: errno))
            }
            if count == 0 { return .success(contents) }
            contents.append(contentsOf: chunk[0..<count])
            if contents.count > maxBytes {
                return .failure(
                    Finding(
                        message: "\(path) is larger than \(maxBytes / 1024 / 1024) MiB",
                        fix: "check that the path names the config file"
                    )
                )
            }
        }
    }

    /// `read(2)`, named apart from ``read(path:)``, which would otherwise shadow it.
    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }

    private static func failure(path: String, errno code: Int32) -> Finding {
        let reason = String(cString: strerror(code))
        let fix: String
        switch code {
        case ENOENT: fix = "check the path, or create the file"
        case EACCES, EPERM: fix = "make the file readable by the user running yrden"
        case EISDIR: fix = "point at the config file itself, not its directory"
        default: fix = "check that the path names a readable file"
        }
        return Finding(message: "cannot read \(path): \(reason) (errno \(code))", fix: fix)
    }
}
