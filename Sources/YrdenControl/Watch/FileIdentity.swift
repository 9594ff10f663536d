#if canImport(Glibc)
import Glibc
#endif

/// What tells one version of a file from the next without reading it: its inode (a rename-replacement makes a
/// new one), size and modification time. `stat` follows symbolic links, so a link swapped to a new target
/// (as Kubernetes updates a mounted ConfigMap) counts as a change too.
struct FileIdentity: Equatable, Sendable {
    var inode: UInt
    var size: Int
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    /// `nil` when there is no file at `path` (or it cannot be read).
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt(info.st_ino)
        size = Int(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }
}
