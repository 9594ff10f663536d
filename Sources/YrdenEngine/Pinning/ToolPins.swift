import Crypto
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
///
/// An approval is one locked step here; the saver then publishes the approved servers' marks and writes the
/// book, off the event loop, and the approval waits for that round (``SaveRound``): 2,000 approvals from 8
/// clients cost a few hundred rounds, none of them on the loop, and each answer still comes after its save.
package final class ToolPins: Sendable {
    private struct State {
        var mode: ToolPinningMode
        var book: PinBook
        /// Incremented by every change of the book or the mode; marks carry the one they were made at.
        var revision: UInt64 = 1
        /// Per server, the tools its last listing had whose definitions the book refused for their size.
        var refused: [String: Set<String>] = [:]
        /// Servers whose approvals the saver has yet to publish, and the round that will publish and save them.
        var unpublished: Set<String> = []
        var nextRound = SaveRound()
        /// Approvals waiting for their round (at most ``maxWaitingApprovals``).
        var waitingApprovals = 0
        /// Servers whose pins were read from the store and that have not listed their tools since: their first
        /// listing replaces the definitions read with its own, and the memory those took is handed back.
        var readFromStore: Set<String>
        /// Changes of the book other than approvals since it was last saved whole: while there are none, the
        /// store holds every pending definition, and approvals are saved as lines of a journal.
        var changesToSaveWhole = 0
        /// Approvals made and not yet saved, in the order made.
        var unsavedApprovals: [PinApproval] = []
        /// Approvals saved as journal lines since the book was last saved whole.
        var journaled = 0
    }

    /// The approvals saved as journal lines before the book is saved whole again: each one is a line the
    /// next start applies, and the journal is read whole.
    package static let maxJournaled = 4096

    /// Approvals that may wait for their save at once; past this an approval is refused before it changes
    /// anything (a client looping on approve must not queue unbounded waiters).
    package static let maxWaitingApprovals = 1024

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
        state = Mutex(State(mode: mode, book: book, readFromStore: Set(book.servers.keys)))
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
        // Definitions the book keeps in the pin file that this listing is compared with are read first, so
        // that no file is read while the lock is held (an approval on the event loop takes it too).
        let toRead = state.withLock { $0.book.storedDefinitionsToRead(server, tools: definitions) }
        var resolved: [SHA256.Digest: ToolDefinition] = [:]
        for definition in toRead { resolved[definition.sha256] = definition.loaded() }
        let (observation, marks, firstListing) = state.withLock { state in
            guard state.mode != .off else { return (PinBook.Observation(), Self.marks(of: server, in: state), false) }
            let observation = state.book.observe(server, tools: definitions, at: now, resolved: resolved)
            let refused = Set(observation.refused.map(\.tool))
            let refusalsMoved = refused != state.refused[server] ?? []
            state.refused[server] = refused.isEmpty ? nil : refused
            if observation.modified || refusalsMoved { state.revision += 1 }
            if observation.modified { state.changesToSaveWhole += 1 }
            let firstListing = state.readFromStore.remove(server) != nil
            return (observation, Self.marks(of: server, in: state), firstListing)
        }
        // The definitions read at the start are free now (their tree was one block of the heap per value).
        if firstListing { FreedMemory.release() }
        return (observation, marks)
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

    /// An operator's approval, as one locked step: the book is changed and the server left for the saver to
    /// publish. The round returned is the one that will publish and save it (its ``SaveRound/finished`` is
    /// awaited by ``ApprovalWait``, which ends the wait the approval counts in).
    func approve(
        _ server: String,
        tool: String,
        digest: String?
    ) -> Result<(change: PinChange, round: SaveRound), ToolApprovalError> {
        let now = WallClock.now()
        let result = state.withLock { state -> Result<(change: PinChange, round: SaveRound), ToolApprovalError> in
            guard state.waitingApprovals < Self.maxWaitingApprovals else { return .failure(.busy) }
            switch state.book.approve(server, tool: tool, digest: digest, at: now) {
            case .failure(let refusal):
                return .failure(.refused(refusal))
            case .success(let change):
                state.revision += 1
                if state.unsavedApprovals.count < Self.maxJournaled {
                    state.unsavedApprovals.append(
                        PinApproval(server: server, tool: tool, digest: change.to.digest, pinnedAt: now)
                    )
                } else {
                    // Saves keep failing: the next that succeeds writes the book whole, these with it.
                    state.unsavedApprovals = []
                    state.changesToSaveWhole += 1
                }
                state.unpublished.insert(server)
                state.waitingApprovals += 1
                return .success((change, state.nextRound))
            }
        }
        if case .success = result { requestSave() }
        return result
    }

    /// Ends the wait of one approval that ``approve(_:tool:digest:)`` counted.
    func approvalAnswered() {
        state.withLock { $0.waitingApprovals -= 1 }
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
            state.changesToSaveWhole += 1
            return true
        }
    }

    /// Takes in the book another replica saved (through a shared store): its newer pins join this book
    /// (``PinBook/merging(_:)``). Returns the servers whose pins changed, whose marks must be published. When
    /// this book holds pins the other lacked, a save is asked for, so the store gets the union.
    func adoptShared(_ other: PinBook) -> [String] {
        let (changed, needsSave) = state.withLock { state -> ([String], Bool) in
            let (merged, changed) = state.book.merging(other)
            if !changed.isEmpty {
                state.book = merged
                state.revision += 1
            }
            let needsSave = merged != other
            // What was just taken from the store need not be written back unless this book adds to it.
            if needsSave { state.changesToSaveWhole += 1 }
            return (changed.sorted(), needsSave)
        }
        if needsSave { requestSave() }
        return changed
    }

    /// Asks ``keepSaving()`` to write the book soon.
    func requestSave() {
        requestContinuation.yield()
    }

    /// Whenever asked, until the task is cancelled: publishes the marks of the servers approvals changed
    /// (`publish`, with their ids), writes the book, and finishes the round the approvals wait for. `failed`
    /// hears each write that failed (the next request tries again). Runs on the gateway's run task, never on
    /// the event loop: the write of a pin file of megabytes and the rebuild of a server's lists take their time
    /// there, and approvals made meanwhile join the next round.
    func keepSaving(publish: ([String]) async -> Void, failed: (any Error) -> Void) async {
        for await _ in saveRequests {
            let (servers, round) = state.withLock { state in
                defer {
                    state.unpublished = []
                    state.nextRound = SaveRound()
                }
                return (state.unpublished.sorted(), state.nextRound)
            }
            if !servers.isEmpty { await publish(servers) }
            var failure: (any Error)?
            do { try saveLatest() } catch {
                failure = error
                failed(error)
            }
            round.finish(failure.map { "\($0)" })
            // Writing 10,000 definitions builds and drops megabytes of small blocks; give them back.
            FreedMemory.release()
        }
    }

    /// The last save, when the gateway stops: approvals still waiting hear how it went.
    func saveAtEnd(failed: (any Error) -> Void) {
        // The servers waiting to be published are not: the catalog is being taken down.
        let round = state.withLock { state in
            state.unpublished = []
            return state.nextRound
        }
        var failure: (any Error)?
        do { try saveLatest() } catch {
            failure = error
            failed(error)
        }
        round.finish(failure.map { "\($0)" })
    }

    /// Writes the book now unless its newest revision is saved already: only the approvals made since the
    /// last save when nothing else changed (a line each in the store's journal), else the whole book.
    func saveLatest() throws {
        try saved.withLock { saved in
            let (book, revision, approvals, changes, journaled) = state.withLock {
                ($0.book, $0.revision, $0.unsavedApprovals, $0.changesToSaveWhole, $0.journaled)
            }
            guard revision > saved else { return }
            let whole = changes > 0 || approvals.isEmpty || journaled + approvals.count > Self.maxJournaled
            if whole {
                try store.save(book)
            } else {
                do { try store.saveApprovals(approvals, of: book) } catch {
                    // Part of a line may be at the journal's end now: the next save writes the book whole,
                    // which ends that journal.
                    state.withLock { $0.changesToSaveWhole += 1 }
                    throw error
                }
            }
            state.withLock { state in
                // What was saved is a prefix of the approvals and a part of the changes: later ones stay.
                state.unsavedApprovals.removeFirst(approvals.count)
                state.changesToSaveWhole -= whole ? changes : 0
                state.journaled = whole ? 0 : state.journaled + approvals.count
            }
            saved = revision
        }
    }
}
