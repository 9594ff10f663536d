#if canImport(Glibc)
import Glibc
#endif

/// What client commands ask of the terminal: whether a stream is one, how wide it is, and writing to it.
enum Terminal {
    static let standardOutput: Int32 = 1
    static let standardError: Int32 = 2

    static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// The width in columns of the terminal behind `descriptor`; `nil` when it is not a terminal.
    static func width(of descriptor: Int32) -> Int? {
        guard isTerminal(descriptor) else { return nil }
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Writes `text` to stderr in one call, unbuffered, so a progress line and its redraws stay whole.
    static func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeMutableBytes { write(standardError, $0.baseAddress, $0.count) }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }

    /// A hint that does not stop the command, on stderr as `note: …`.
    static func note(_ text: String) {
        writeError("note: \(text)\n")
    }

    /// Pushes what `print` buffered to stdout, so a pipe reader sees each line of a following command at once.
    static func flushOutput() {
        fflush(nil)  // every stream: naming `stdout` is not concurrency-safe
    }

    /// `text` cut to `width` characters, with an ellipsis where it was cut.
    static func truncated(_ text: String, to width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(width)) }
        return String(text.prefix(width - 1)) + "…"
    }
}

extension String {
    /// The text without `suffix` at its end, if it ends so.
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
