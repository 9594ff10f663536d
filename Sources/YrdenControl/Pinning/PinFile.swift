import Glibc
import YrdenEngine
import YrdenProtocol
import YrdenStorage

/// The pin file as a start read it, held open so that the definitions it holds are read again from it when
/// needed rather than kept in memory (see ``StoredPinDefinition``).
///
/// Held by descriptor, not by path: the saver replaces the file by renaming a new one over it, and the
/// descriptor keeps reading the file as it was read, whatever replaced it. What it holds on disk is handed
/// back once the last definition read from it is replaced or dropped.
final class PinFile: Sendable {
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The file at `path` and its contents, or `nil` when there is none. Anything but a regular file, or
    /// one larger than `maxBytes`, is an error, found without waiting (a FIFO is opened non-blocking).
    static func open(_ path: String, maxBytes: Int) throws(StorageError) -> (file: PinFile, bytes: [UInt8])? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("read", path, errno)
        }
        let file = PinFile(path: path, descriptor: descriptor)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("read", path, errno) }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw StorageError(
                .malformed,
                message: "\(path) is not a regular file",
                fix: "remove it (a regular file is written in its place), or point the data directory elsewhere"
            )
        }
        guard Int(status.st_size) <= maxBytes else {
            throw StorageError(
                .tooLarge,
                message: "\(path) is larger than \(maxBytes) bytes",
                fix: "check that the path names the right file"
            )
        }
        return (file, try file.read(at: 0, count: Int(status.st_size)))
    }

    /// `count` bytes from `offset`; fewer is an error (the file as read is never shortened: it is replaced, not
    /// rewritten).
    func read(at offset: Int, count: Int) throws(StorageError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw Self.failure("read", path, errno)
            }
            guard got > 0 else {
                throw StorageError(
                    .malformed,
                    message: "\(path) ended before byte \(offset + count) while a pinned definition was read again",
                    fix: "the file was cut short while the gateway ran; restart it to read what is left"
                )
            }
            done += got
        }
        return bytes
    }

    private static func failure(_ action: String, _ path: String, _ code: Int32) -> StorageError {
        StorageError(
            .system(errno: code),
            message: "cannot \(action) \(path): \(String(cString: strerror(code)))",
            fix: "check the file's permissions and the disk"
        )
    }
}

/// A tool definition kept in the pin file a start read: where it lies there, and its name. Its digest and
/// size are computed once, as it is read at the start, and kept by its ``ToolDefinition``.
final class StoredPinDefinition: StoredToolDefinition {
    let file: PinFile
    let offset: Int
    let count: Int
    let name: String

    init(file: PinFile, offset: Int, count: Int, name: String) {
        self.file = file
        self.offset = offset
        self.count = count
        self.name = name
    }

    func text() throws -> [UInt8] {
        try file.read(at: offset, count: count)
    }

    func fields() throws -> JSONObject {
        let bytes = try text()
        guard let object = try JSONValue.parse(bytes).objectValue else {
            throw StorageError(
                .malformed,
                message: "\(file.path) no longer holds a tool definition at byte \(offset)",
                fix: "restart the gateway to read the file again"
            )
        }
        return object
    }
}
