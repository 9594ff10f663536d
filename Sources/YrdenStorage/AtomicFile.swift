#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and crash-safe whole-file replacement, with plain POSIX calls so failures carry their errno.
///
/// A write goes to a fresh temporary file beside the target, is flushed to disk, and is renamed over the target;
/// `rename(2)` is atomic, so a reader (or a restart after `kill -9` or a power cut) sees the old file or the new
/// one, never a mix. The directory is flushed too, so the rename itself survives a power cut.
package enum AtomicFile {
    /// The default read limit: a config or a token is kilobytes, and a path that names a huge file or a device by
    /// mistake should fail quickly instead of filling memory.
    package static let defaultMaxBytes = 16 * 1024 * 1024

    /// Replaces the file at `path` with `bytes`, created with `mode` (less the umask, as `open(2)` does).
    ///
    /// The temporary file has `mode` from the moment it exists, so a secret is never briefly readable by others.
    /// It is named `.<name>.tmp-<pid>-<random>`, a hidden name that no secret name can take. On any failure it is
    /// removed and the target is left as it was. A symbolic link at `path` is followed, so the file it points at
    /// is replaced and the link kept.
    package static func write(_ bytes: [UInt8], to path: String, mode: mode_t) throws(StorageError) {
        try write(to: path, mode: mode) { emit in _ = emit(bytes) }
    }

    /// Replaces the file at `path`, as ``write(_:to:mode:)`` does, with the pieces `produce` hands to `emit`
    /// in order: a file of many megabytes is never whole in memory. Once a write has failed, `emit` returns
    /// false and writes nothing more; the failure is thrown after `produce` returns.
    ///
    /// With `maxBytes`, a file that would be larger is not written: the target is left as it was and
    /// ``StorageError/Kind/tooLarge`` is thrown, so a writer never leaves a file its reader refuses. When
    /// `produce` throws, nothing is written either and its error is thrown.
    package static func write(
        to path: String,
        mode: mode_t,
        maxBytes: Int = .max,
        _ produce: (_ emit: ([UInt8]) -> Bool) throws(StorageError) -> Void
    ) throws(StorageError) {
        let target = followingSymbolicLink(path)
        let (descriptor, temporary) = try createTemporary(beside: target, mode: mode, for: path)
        var placed = false
        defer { if !placed { unlink(temporary) } }

        var failedCall: (action: String, errno: Int32)?
        var written = 0
        var tooLarge = false
        do {
            try produce { bytes in
                guard failedCall == nil, !tooLarge else { return false }
                written += bytes.count
                guard written <= maxBytes else {
                    tooLarge = true
                    return false
                }
                guard POSIX.writeAll(bytes, to: descriptor) else {
                    failedCall = ("write", errno)
                    return false
                }
                return true
            }
        } catch {
            close(descriptor)
            throw error
        }
        if tooLarge {
            close(descriptor)
            throw StorageError(
                .tooLarge,
                message: "\(path) was not written: it would be larger than \(maxBytes) bytes",
                fix: "the file as it was is kept"
            )
        }
        if failedCall == nil, !POSIX.sync(descriptor) {
            failedCall = ("flush", errno)
        }
        // close(2) can report a delayed write error (NFS), so its result counts when nothing failed before it.
        if close(descriptor) != 0, failedCall == nil {
            failedCall = ("write", errno)
        }
        if let failedCall { throw POSIX.failure(failedCall.action, path, errno: failedCall.errno) }

        guard rename(temporary, target) == 0 else { throw POSIX.failure("replace", path, errno: errno) }
        placed = true
        try syncDirectory(of: target, for: path)
    }

    /// The contents of `path`, or nil when there is no such file.
    ///
    /// A file larger than `maxBytes` is an error rather than a truncated read. With `regularFileOnly`, anything
    /// but a regular file (a FIFO, a device, a directory) is an error too, found without waiting: opening a
    /// FIFO for reading would otherwise wait for a writer, forever.
    package static func read(
        _ path: String,
        maxBytes: Int = defaultMaxBytes,
        regularFileOnly: Bool = false
    ) throws(StorageError) -> [UInt8]? {
        let descriptor = POSIX.open(path, O_RDONLY | O_CLOEXEC | (regularFileOnly ? O_NONBLOCK : 0))
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw POSIX.failure("read", path, errno: errno)
        }
        defer { close(descriptor) }
        if regularFileOnly {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { throw POSIX.failure("read", path, errno: errno) }
            guard status.st_mode & S_IFMT == S_IFREG else {
                throw StorageError(
                    .malformed,
                    message: "\(path) is not a regular file",
                    fix: "remove it (a regular file is written in its place), or point the data directory elsewhere"
                )
            }
        }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = POSIX.read(descriptor, into: &chunk)
            if count < 0 { throw POSIX.failure("read", path, errno: errno) }
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[0..<count])
            if contents.count > maxBytes {
                throw StorageError(
                    .tooLarge,
                    message: "\(path) is larger than \(maxBytes) bytes",
                    fix: "check that the path names the right file"
                )
            }
        }
    }

    /// Appends `bytes` to the file at `path` (created with `mode` when there is none) and flushes it to disk,
    /// the directory too when the file is new, before it returns: a journal's lines that last. A failure may
    /// leave part of `bytes` at the end of the file.
    package static func appendDurably(_ bytes: [UInt8], to path: String, mode: mode_t) throws(StorageError) {
        var status = stat()
        let existed = stat(path, &status) == 0
        let descriptor = POSIX.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw POSIX.failure("append to", path, errno: errno) }
        var failedCall: (action: String, errno: Int32)?
        if !POSIX.writeAll(bytes, to: descriptor) {
            failedCall = ("append to", errno)
        } else if !POSIX.sync(descriptor) {
            failedCall = ("flush", errno)
        }
        if close(descriptor) != 0, failedCall == nil { failedCall = ("append to", errno) }
        if let failedCall { throw POSIX.failure(failedCall.action, path, errno: failedCall.errno) }
        if !existed { try syncDirectory(of: path, for: path) }
    }

    /// Removes the file at `path`; false when there was none. The directory is flushed so the removal lasts.
    @discardableResult
    package static func remove(_ path: String) throws(StorageError) -> Bool {
        guard unlink(path) == 0 else {
            if errno == ENOENT { return false }
            throw POSIX.failure("remove", path, errno: errno)
        }
        try syncDirectory(of: path, for: path)
        return true
    }

    /// Removes the temporary files that writes of `path` left behind when their process died mid-write
    /// (`kill -9`, a power cut); returns their paths. Only files named as ``write(_:to:mode:)`` names them,
    /// for this file, whose writer's pid no longer runs, are removed: a live writer's file is its own.
    @discardableResult
    package static func removeLeftoverTemporaries(of path: String) throws(StorageError) -> [String] {
        let target = followingSymbolicLink(path)
        let directory = POSIX.directory(of: target)
        let prefix = ".\(POSIX.fileName(of: target)).tmp-"
        guard let stream = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw POSIX.failure("list the directory of", path, errno: errno)
        }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(prefix), let pid = writerPID(name.dropFirst(prefix.count)), !isRunning(pid) {
                names.append(name)
            }
        }
        closedir(stream)
        var removed: [String] = []
        for name in names {
            let leftover = "\(directory)/\(name)"
            if unlink(leftover) == 0 {
                removed.append(leftover)
            } else if errno != ENOENT {
                throw POSIX.failure("remove", leftover, errno: errno)
            }
        }
        if !removed.isEmpty { try syncDirectory(of: target, for: path) }
        return removed
    }

    /// The pid in the rest of a temporary file's name, `<pid>-<random hex>`; `nil` for any other shape.
    private static func writerPID(_ rest: Substring) -> pid_t? {
        let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty, parts[1].allSatisfy(\.isHexDigit), let pid = pid_t(parts[0]),
            pid > 0
        else { return nil }
        return pid
    }

    /// Whether a process `pid` exists (one owned by another user counts: `EPERM` says it exists).
    private static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// Opens a new, exclusively created temporary file in the directory of `target`.
    private static func createTemporary(
        beside target: String,
        mode: mode_t,
        for path: String
    ) throws(StorageError) -> (descriptor: Int32, path: String) {
        let directory = POSIX.directory(of: target)
        let prefix = "\(directory)/.\(POSIX.fileName(of: target)).tmp-\(getpid())-"
        // O_EXCL makes a clash with a leftover file fail instead of sharing it; a few fresh names settle that.
        for _ in 0..<8 {
            let temporary = prefix + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            let descriptor = POSIX.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if descriptor >= 0 { return (descriptor, temporary) }
            if errno != EEXIST { throw POSIX.failure("create a temporary file for", path, errno: errno) }
        }
        throw POSIX.failure("create a temporary file for", path, errno: EEXIST)
    }

    /// Flushes the directory entry of `target`, so that a rename or removal survives a power cut.
    private static func syncDirectory(of target: String, for path: String) throws(StorageError) {
        let directory = POSIX.directory(of: target)
        let descriptor = POSIX.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIX.failure("flush the directory of", path, errno: errno) }
        defer { close(descriptor) }
        // Some file systems cannot flush a directory and say EINVAL; the rename has happened all the same.
        if !POSIX.sync(descriptor), errno != EINVAL {
            throw POSIX.failure("flush the directory of", path, errno: errno)
        }
    }

    /// The file a symbolic link at `path` points at, or `path` itself when it is no link or the link is dangling.
    private static func followingSymbolicLink(_ path: String) -> String {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
            let resolved = realpath(path, nil)
        else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
