#if canImport(Glibc)
import Glibc
#endif

/// Opens a URL in the user's browser with `xdg-open`, and only in a graphical session: on a server or over
/// SSH the printed URL is what the user opens.
enum Browser {
    static var isAvailable: Bool {
        let variables: [String] = ["DISPLAY", "WAYLAND_DISPLAY"]
        return variables.contains { name in getenv(name).map { $0.pointee != 0 } ?? false }
    }

    /// Starts `xdg-open URL` in the background through `sh`, which returns at once, so no child is left to
    /// reap and nothing the opener prints reaches the terminal. A missing `xdg-open` is not an error.
    static func open(_ url: String) {
        let script = "command -v xdg-open >/dev/null 2>&1 && (xdg-open \"$1\" </dev/null >/dev/null 2>&1 &)"
        let words: [String] = ["sh", "-c", script, "sh", url]
        let arguments = words.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid = pid_t()
        guard posix_spawnp(&pid, "sh", nil, nil, arguments, environ) == 0 else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
