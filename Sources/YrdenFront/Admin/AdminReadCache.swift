import Synchronization

/// The serialized answers of the admin API's large listings, kept while what they were made from is
/// unchanged: a console that lists one server's tools before each call of an app, or eight operators
/// reading `/tools`, cost one serialization per change of the catalog, then a copy of bytes.
///
/// Bounded: at most ``maxEntries`` answers and ``maxBytes`` in all (the least recently used go first);
/// an answer larger than a quarter of that is not kept.
final class AdminReadCache: Sendable {
    /// What an answer was made from. An object (the merged catalog, a profile's view) is immutable and
    /// compared by identity, held weakly: a cached answer never keeps an old catalog alive, and a freed one
    /// compares unequal to whatever reuses its address. A server's own lists are compared by their items'
    /// digests, which the engine keeps for its change detection.
    enum Source: Sendable {
        case object(WeakObject)
        case digests([[Int]])

        static func object(_ object: any AnyObject & Sendable) -> Source { .object(WeakObject(object)) }

        func isSame(as other: Source) -> Bool {
            switch (self, other) {
            case (.object(let a), .object(let b)): a.object != nil && a.object === b.object
            case (.digests(let a), .digests(let b)): a == b
            default: false
            }
        }
    }

    /// Unchecked: its one field is set at init and only read after; weak references are read atomically.
    final class WeakObject: @unchecked Sendable {
        weak var object: AnyObject?

        init(_ object: any AnyObject & Sendable) { self.object = object }
    }

    private struct Entry {
        let source: Source
        let bytes: [UInt8]
        var used: UInt64
    }

    private struct Entries {
        var byKey: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    static let maxEntries = 16
    static let maxBytes = 32 << 20

    private let entries = Mutex(Entries())

    /// The answer for `key` made from `source`, when one is kept.
    func bytes(for key: String, from source: Source) -> [UInt8]? {
        entries.withLock { entries in
            guard var entry = entries.byKey[key], entry.source.isSame(as: source) else { return nil }
            entries.clock += 1
            entry.used = entries.clock
            entries.byKey[key] = entry
            return entry.bytes
        }
    }

    func keep(_ bytes: [UInt8], for key: String, from source: Source) {
        guard bytes.count <= Self.maxBytes / 4 else { return }
        // Outside the lock: the replaced answer's bytes (megabytes) are freed after it is released.
        var dropped: [Entry] = []
        entries.withLock { entries in
            entries.clock += 1
            if let old = entries.byKey.removeValue(forKey: key) {
                entries.bytes -= old.bytes.count
                dropped.append(old)
            }
            while entries.byKey.count >= Self.maxEntries || entries.bytes + bytes.count > Self.maxBytes,
                let oldest = entries.byKey.min(by: { $0.value.used < $1.value.used })
            {
                entries.byKey[oldest.key] = nil
                entries.bytes -= oldest.value.bytes.count
                dropped.append(oldest.value)
            }
            entries.byKey[key] = Entry(source: source, bytes: bytes, used: entries.clock)
            entries.bytes += bytes.count
        }
        _ = dropped
    }

    /// Answers kept now, for tests.
    var count: Int { entries.withLock { $0.byKey.count } }
}
