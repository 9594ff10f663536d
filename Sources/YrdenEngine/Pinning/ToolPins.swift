import Synchronization
import YrdenConfig
import YrdenProtocol

/// The running gateway's pin book, the mode it is applied in, and its saving.
///
/// Read and changed by upstream connections when they load a server's lists, and by operators (approval, a
/// mode change), never by a client's request: requests read the marks published in the snapshot. Digests are
/// computed before the lock is taken. Saves are coalesced: a change asks for one, and ``keepSaving()`` (a
/// child task of the gateway's run) writes the newest book when it gets to it, so 200 servers pinned together
/// cost a few writes of the file, not 200.
package final class ToolPins: Sendable {
    private struct State {
        var mode: ToolPinningMode
        var book: PinBook
        /// Incremented by every change of the book or the mode; marks carry the one they were made at.
        var revision: UInt64 = 1
        /// Per server, the tools its last listing had whose definitions the book refused for their size.
        var refused: [String: Set<String>] = [:]
    }

    package let store: any ToolPinStore
    private let state: Mutex<State>
    /// The revision saved last. Held while writing, so writes never overlap and never go back in time (only
    /// the saver and an approval write, never a request).
    private let saved = Mutex<UInt64>(1)
    private let saveRequests: AsyncStream<Void>
    private let requestContinuation: AsyncStream<Void>.Continuation

    /// `book` is what `store` holds now.
    package init(mode: ToolPinningMode, store: any ToolPinStore = InMemoryToolPinStore(), book: PinBook = PinBook()) {
        self.store = store
        state = Mutex(State(mode: mode, book: book))
        (saveRequests, requestContinuation) = AsyncStream.makeStream(
            of: Void.self,
            bufferingPolicy: .bufferingNewest(1)
        )
    }

    package var mode: ToolPinningMode { state.withLock { $0.mode } }

    package var book: PinBook { state.withLock { $0.book } }

    /// Takes server `server`'s tool list: pins new tools, finds changed ones. Nothing happens while pinning
    /// is off.
    func observe(_ server: String, tools: [JSONObject]) -> (observation: PinBook.Observation, marks: RevisedPinMarks) {
        guard mode != .off else { return (PinBook.Observation(), marks(of: server)) }
        // A tool without a name is not listed by the gateway either, so there is nothing to pin.
        let definitions = tools.filter { $0["name"]?.stringValue != nil }.map(ToolDefinition.init(tool:))
        let now = WallClock.now()
        return state.withLock { state in
            guard state.mode != .off else { return (PinBook.Observation(), Self.marks(of: server, in: state)) }
            let observation = state.book.observe(server, tools: definitions, at: now)
            let refused = Set(observation.refused.map(\.tool))
            let refusalsMoved = refused != state.refused[server] ?? []
            state.refused[server] = refused.isEmpty ? nil : refused
            if observation.modified || refusalsMoved { state.revision += 1 }
            return (observation, Self.marks(of: server, in: state))
        }
    }

    /// The marks of server `server`'s tools as the book and the mode stand now.
    func marks(of server: String) -> RevisedPinMarks {
        state.withLock { Self.marks(of: server, in: $0) }
    }

    private static func marks(of server: String, in state: State) -> RevisedPinMarks {
        let changed = state.mode == .off ? [:] : state.book.changedTools(of: server)
        var marks =
            state.mode == .enforce ? ToolPinMarks(withheld: changed) : ToolPinMarks(flagged: changed)
        // A definition that cannot be pinned cannot be checked either: `enforce` withholds it, `warn` serves it
        // flagged, keeping its promise that no tool is withheld and no host breaks.
        for tool in state.mode == .off ? [] : state.refused[server] ?? [] {
            if state.mode == .enforce {
                marks.flagged[tool] = nil
                marks.withheld[tool] = ToolPinMarks.tooLargeToPin
            } else {
                marks.flagged[tool] = ToolPinMarks.tooLargeToPin
            }
        }
        return RevisedPinMarks(marks: marks, revision: state.revision)
    }

    func approve(_ server: String, tool: String, digest: String?) -> Result<PinChange, PinBook.Refusal> {
        let now = WallClock.now()
        return state.withLock { state in
            let result = state.book.approve(server, tool: tool, digest: digest, at: now)
            if case .success = result { state.revision += 1 }
            return result
        }
    }

    /// `true` when `mode` differs from the mode in force.
    func setMode(_ mode: ToolPinningMode) -> Bool {
        state.withLock { state in
            guard state.mode != mode else { return false }
            state.mode = mode
            state.revision += 1
            return true
        }
    }

    /// Forgets the pins of servers not in `ids` (none while pinning is off, which leaves saved pins alone);
    /// `true` when some were.
    func keepOnly(_ ids: Set<String>) -> Bool {
        state.withLock { state in
            state.refused = state.refused.filter { ids.contains($0.key) }
            guard state.mode != .off, state.book.keepOnly(ids) else { return false }
            state.revision += 1
            return true
        }
    }

    /// Asks ``keepSaving()`` to write the book soon.
    func requestSave() {
        requestContinuation.yield()
    }

    /// Writes the book whenever asked, until the task is cancelled; `failed` hears each write that failed
    /// (the next request tries again).
    func keepSaving(failed: (any Error) -> Void) async {
        for await _ in saveRequests {
            do { try saveLatest() } catch { failed(error) }
            // Writing 10,000 definitions builds and drops megabytes of small blocks; give them back.
            FreedMemory.release()
        }
    }

    /// Writes the book now unless its newest revision is saved already.
    func saveLatest() throws {
        try saved.withLock { saved in
            let (book, revision) = state.withLock { ($0.book, $0.revision) }
            guard revision > saved else { return }
            try store.save(book)
            saved = revision
        }
    }
}
