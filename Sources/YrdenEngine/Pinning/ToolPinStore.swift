import Synchronization

/// Where the pin book is kept between runs, provided by the control layer (a file in the data directory),
/// so the engine does no file I/O of its own.
package protocol ToolPinStore: Sendable {
    /// The book saved last; an empty one when none was saved yet. Throws when what is saved cannot be read:
    /// starting without it would pin every changed tool afresh, which is what pinning is there to prevent.
    func load() throws -> PinBook

    /// Replaces what is saved with `book`, atomically.
    func save(_ book: PinBook) throws

    /// Where the book is kept, for log lines ("memory" when it is not kept).
    var location: String { get }
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
