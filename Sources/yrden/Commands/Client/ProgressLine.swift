import Synchronization

/// What a waiting command is waiting for, on stderr. On a terminal it is one line redrawn in place behind a
/// spinner; otherwise each new text is a plain line of its own, so logs and pipes get no control codes.
final class ProgressLine: Sendable {
    private struct State {
        var text: String?
        /// The last text shown, kept after ``clear()`` for a message about how the wait ended.
        var lastText: String?
        var frame = 0
        var ticker: Task<Void, Never>?
    }

    private static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    private let animated: Bool
    /// Shown before each text, such as the server's id.
    private let label: String?
    private let state = Mutex(State())

    init(label: String? = nil, animated: Bool = Terminal.isTerminal(Terminal.standardError)) {
        self.label = label
        self.animated = animated
    }

    /// Shows `text`; the same text again changes nothing.
    func update(_ text: String) {
        let changed = state.withLock { state -> Bool in
            guard state.text != text else { return false }
            state.text = text
            state.lastText = text
            return true
        }
        guard changed else { return }
        guard animated else {
            Terminal.writeError(labelled(text) + "\n")
            return
        }
        draw()
        startTicker()
    }

    var lastText: String? {
        state.withLock { $0.lastText }
    }

    /// Removes the line (on a terminal) so what comes next starts on a clean line.
    func clear() {
        guard animated else { return }
        let ticker = state.withLock { state -> Task<Void, Never>? in
            defer {
                state.ticker = nil
                state.text = nil
            }
            Terminal.writeError("\r\u{1B}[2K")
            return state.ticker
        }
        ticker?.cancel()
    }

    private func labelled(_ text: String) -> String {
        label.map { "\($0): \(text)" } ?? text
    }

    /// Redraws the line with the next spinner frame. Drawing holds the lock, so a redraw cannot land after
    /// ``clear()`` has wiped the line.
    private func draw() {
        state.withLock { state in
            guard let text = state.text else { return }
            state.frame = (state.frame + 1) % Self.frames.count
            let width = (Terminal.width(of: Terminal.standardError) ?? 80) - 3
            let shown = Terminal.truncated(labelled(text), to: max(width, 10))
            Terminal.writeError("\r\u{1B}[2K\(Self.frames[state.frame]) \(shown)")
        }
    }

    private func startTicker() {
        state.withLock { state in
            guard state.ticker == nil else { return }
            state.ticker = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(100))
                    guard !Task.isCancelled, let self else { return }
                    self.draw()
                }
            }
        }
    }
}
