#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates a directory, and any missing parents, that only the owner can enter.
package enum PrivateDirectory {
    /// Creates `path` with mode 0700 when it is missing. An existing directory is left as it is: its mode is the
    /// operator's choice, and the files inside are 0600 either way.
    package static func create(_ path: String) throws(StorageError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw StorageError(
                    .system(errno: ENOTDIR),
                    message: "cannot use \(path) as the secrets directory: it is not a directory",
                    fix: "remove or rename that file, or choose another data directory"
                )
            }
            return
        }
        let parent = POSIX.directory(of: path)
        if parent != path, parent != "." {
            try create(parent)
        }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw POSIX.failure("create the directory", path, errno: errno)
        }
    }
}
