import YrdenEngine
import YrdenProtocol
import YrdenStorage

/// The pin book as `<dataDir>/tool-pins.json`: mode 0600 in a directory created 0700, replaced atomically
/// (temporary file, fsync, rename), so a restart finds every pin and every change waiting for approval.
///
/// Approvals made while nothing else changed are appended to `tool-pins.journal` beside it instead (one
/// JSON line each, flushed before the approval is answered: see ``PinJournal``), so 2,000 approvals do not
/// rewrite a file of megabytes 2,000 times; the next whole save removes the journal, once the file holds it.
/// A start applies the journal to the file and, when it had lines, saves the book whole.
///
/// Not a secret (tool definitions are what any client of the server sees), so it is never sealed, and an
/// operator can read it; an edited file is read as it is, its digests computed again.
package struct FileToolPinStore: ToolPinStore {
    package static let fileName = "tool-pins.json"
    package static let journalName = "tool-pins.journal"
    /// Pins hold whole definitions: 200 servers of 50 tools are a few megabytes. The book keeps its
    /// definitions below ``PinBook/maxBookBytes`` (canonical); indented, that stays below this, and a book
    /// that would not is not written (the file keeps what it had), so a start never finds a file it refuses.
    static let maxWrittenBytes = 64 * 1024 * 1024
    /// What a start reads: files written by earlier versions, which bounded only this, still load.
    static let maxBytes = 256 * 1024 * 1024

    package let path: String
    package let journal: PinJournal

    /// Uses `directory`, creating it (and missing parents) with mode 0700, and removes what writers that
    /// died mid-write left there.
    package init(directory: String) throws(StorageError) {
        try PrivateDirectory.create(directory)
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        path = prefix + Self.fileName
        journal = PinJournal(path: prefix + Self.journalName)
        try AtomicFile.removeLeftoverTemporaries(of: path)
    }

    package var location: String { path }

    /// The book with its definitions left in the file (read again from it when needed: see ``PinFile``); only
    /// digests, sizes and times are held.
    package func load() throws -> PinBook {
        var book = try loadFile()
        let approvals = try journal.read()
        guard !approvals.isEmpty else { return book }
        for approval in approvals { book.replay(approval) }
        // The journal's lines are in the file now, and the next approval starts a journal of its own.
        try save(book)
        return book
    }

    private func loadFile() throws -> PinBook {
        guard let (file, bytes) = try PinFile.open(path, maxBytes: Self.maxBytes) else { return PinBook() }
        do {
            return try PinFileReader(file: file, bytes: bytes).book()
        } catch {
            throw StorageError(
                .malformed,
                message: "\(path) does not hold tool pins as the gateway writes them: \(error)",
                fix: "restore it from a backup, or remove it to pin every tool afresh (changes made meanwhile "
                    + "will then go unnoticed)"
            )
        }
    }

    package func save(_ book: PinBook) throws {
        try AtomicFile.write(to: path, mode: 0o600, maxBytes: Self.maxWrittenBytes) { emit throws(StorageError) in
            do {
                try book.writePrettyJSON { _ = emit($0) }
            } catch let error as StorageError {
                throw error
            } catch {
                throw StorageError(
                    .malformed,
                    message: "\(path) was not written: \(error)",
                    fix: "the file as it was is kept"
                )
            }
        }
        // Only once the file holds them: a start that finds the journal still applies lines the file holds
        // already, which changes nothing.
        try journal.remove()
    }

    /// One line each in the journal, flushed before this returns.
    package func saveApprovals(_ approvals: [PinApproval], of book: PinBook) throws {
        try journal.append(approvals)
    }
}
