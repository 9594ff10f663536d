import Synchronization

/// Where the pin book is kept between runs, provided by the control layer (a file in the data directory),
/// so the engine does no file I/O of its own.
package protocol ToolPinStore: Sendable {
    /// The book saved last; an empty one when none was saved yet. Throws when what is saved cannot be read:
    /// starting without it would pin every changed tool afresh, which is what pinning is there to prevent.
    func load() throws -> PinBook

    /// Replaces what is saved with `book`, atomically.
    func save(_ book: PinBook) throws

    /// Adds `approvals`, made since `book`'s last ``save(_:)`` (and its journaled ones), to what is saved, so
    /// that an approval costs a line rather than the whole book; what it approves (the pending definitions)
    /// was saved already. `book` is the book with them made, for a store that has no cheaper way to save.
    func saveApprovals(_ approvals: [PinApproval], of book: PinBook) throws

    /// Where the book is kept, for log lines ("memory" when it is not kept).
    var location: String { get }
}

extension ToolPinStore {
    /// Saves the book whole.
    package func saveApprovals(_ approvals: [PinApproval], of book: PinBook) throws {
        try save(book)
    }
}

/// An approval as the store records it: the pending definition with `digest` of `tool` on `server` became
/// the pinned one at `pinnedAt`. Applied again to the book saved before it, it makes the same change; applied
/// to a book that holds it already, it changes nothing.
package struct PinApproval: Sendable, Hashable {
    package var server: String
    package var tool: String
    package var digest: String
    package var pinnedAt: Double

    package init(server: String, tool: String, digest: String, pinnedAt: Double) {
        self.server = server
        self.tool = tool
        self.digest = digest
        self.pinnedAt = pinnedAt
    }
}

extension PinBook {
    /// Makes `approval` again on a book read from the store: `false` when it was made already, or when the
    /// pending definition is no longer the one approved (nothing changes then).
    @discardableResult
    package mutating func replay(_ approval: PinApproval) -> Bool {
        guard
            case .success = approve(
                approval.server,
                tool: approval.tool,
                digest: approval.digest,
                at: approval.pinnedAt
            )
        else { return false }
        return true
    }
}

/// A store that keeps the book in memory only: for tests, and for a gateway without a data directory (its
/// pins then last as long as the process).
package final class InMemoryToolPinStore: ToolPinStore {
    private let book: Mutex<PinBook>

    package init(_ book: PinBook = PinBook()) {
        self.book = Mutex(book)
    }

    package func load() -> PinBook { book.withLock { $0 } }

    package func save(_ book: PinBook) {
        self.book.withLock { $0 = book }
    }

    package var location: String { "memory" }

    /// What was saved last.
    package var saved: PinBook { load() }
}
