import YrdenEngine
import YrdenProtocol
import YrdenSharedState

/// Tool pins kept in the store replicas share: the whole book as one document (`pins:book`), written by the
/// store's writer task (a save never waits on the database), and taken in by every other replica as it
/// changes (``ToolPinning/adoptShared(_:)``), so an approval made on one replica is served by all.
package struct SharedToolPinStore: ToolPinStore {
    package static let prefix = "pins:"
    package static let name = "book"
    package let documents: MirroredDocuments

    package init(documents: MirroredDocuments) {
        self.documents = documents
    }

    package var location: String { "the store (PostgreSQL \(documents.database.location.description))" }

    /// The book as this replica last wrote or heard it; an empty one when none was saved yet.
    package func load() throws -> PinBook {
        try Self.book(from: documents.load(Self.name))
    }

    package func save(_ book: PinBook) throws {
        var bytes: [UInt8] = []
        try book.writePrettyJSON { bytes += $0 }
        guard documents.store(Self.name, bytes) else {
            throw SharedStateError.unavailable("too many writes wait for the store to come back; the pins stay here")
        }
    }

    /// The book in `bytes`; empty for none.
    package static func book(from bytes: [UInt8]?) throws -> PinBook {
        guard let bytes else { return PinBook() }
        return try PinBook(json: JSONValue.parse(bytes))
    }
}
