#if canImport(Glibc)
import Glibc
#endif

/// The mounts of this process (`/proc/self/mountinfo`): which file system a directory is on.
///
/// inotify reports only changes made through this kernel: on a network share, a FUSE mount (Docker Desktop's
/// bind mounts among them) or 9p, a file edited by another machine or by a container's host raises no event.
struct MountTable: Sendable {
    struct Mount: Sendable, Hashable {
        var point: String
        var type: String
    }

    var mounts: [Mount]

    /// File systems where changes made elsewhere raise no inotify event.
    static let unreliableTypes: Set<String> = ["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "virtiofs", "vboxsf"]

    /// The table as this process sees it now; empty when it cannot be read.
    static func current() -> MountTable {
        guard let file = fopen("/proc/self/mountinfo", "r") else { return MountTable(text: "") }
        defer { fclose(file) }
        var text = ""
        var line: UnsafeMutablePointer<CChar>? = nil
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line { text += String(cString: line) }
        return MountTable(text: text)
    }

    /// Parses mountinfo lines: the mount point is the fifth field (spaces escaped as `\040`), the type the
    /// first field after the ` - ` separator. Lines it cannot read are skipped.
    init(text: String) {
        mounts = text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 4, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else { return nil }
            return Mount(point: Self.unescaped(fields[4]), type: String(fields[dash + 1]))
        }
    }

    /// The type of the file system `directory` is on, when it is one inotify cannot be trusted on.
    func unreliableFileSystem(of directory: String) -> String? {
        guard let type = type(of: Self.resolved(directory)) else { return nil }
        return Self.unreliableTypes.contains(type) || type.hasPrefix("fuse") ? type : nil
    }

    /// The type of the innermost mount holding `path` (the last one listed wins, as it is mounted over the others).
    func type(of path: String) -> String? {
        var best: Mount?
        for mount in mounts where Self.contains(mount.point, path) {
            if best.map({ mount.point.count >= $0.point.count }) ?? true { best = mount }
        }
        return best?.type
    }

    private static func contains(_ point: String, _ path: String) -> Bool {
        point == "/" || path == point || path.hasPrefix(point + "/")
    }

    private static func unescaped(_ field: Substring) -> String {
        String(field).replacing("\\040", with: " ").replacing("\\011", with: "\t").replacing("\\134", with: "\\")
    }

    /// `path` with symbolic links resolved, or as given when it cannot be.
    private static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }
}
