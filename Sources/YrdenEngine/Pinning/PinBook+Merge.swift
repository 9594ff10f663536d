/// Two replicas' pin books made one, for replicas that share their pins through a store.
///
/// Per server and tool: a pin only the other book has is taken; a pin both have is taken from the other book
/// when it pins another definition and was pinned later (an approval made there, which sets `pinnedAt` to its
/// moment); otherwise this book's pin stays (it is the same definition, or this replica saw it last). Pins only
/// this book has stay, and reach the store with this replica's next save: each replica's view grows towards
/// the union, and a book equal to what is stored is not written again, so the exchange ends.
extension PinBook {
    /// This book with `other`'s newer pins taken in, and the servers whose pins that changed.
    package func merging(_ other: PinBook) -> (book: PinBook, changed: Set<String>) {
        var merged = servers.mapValues(\.dictionary)
        var changed: Set<String> = []
        for (server, theirs) in other.servers {
            var mine = merged[server] ?? [:]
            var modified = false
            for (tool, pin) in theirs {
                guard let current = mine[tool] else {
                    mine[tool] = pin
                    modified = true
                    continue
                }
                if current.pinned != pin.pinned && pin.pinnedAt > current.pinnedAt {
                    mine[tool] = pin
                    modified = true
                }
            }
            if modified {
                merged[server] = mine
                changed.insert(server)
            }
        }
        return changed.isEmpty ? (self, []) : (PinBook(servers: merged), changed)
    }
}
