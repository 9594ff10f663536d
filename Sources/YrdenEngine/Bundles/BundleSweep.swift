import FoundationEssentials
import Synchronization

/// Removes the unpacked bundles (`<data directory>/bundles/<sha256>/`) that no server entry names any more.
///
/// A bundle is unpacked once per digest and may serve several entries, so it goes only when the config no
/// longer mentions its digest anywhere (an entry's `command`, `args` or `cwd` hold its folder). A bundle being
/// installed for an entry not yet added is held (``hold(_:)``) and never swept, so a removal elsewhere at that
/// moment cannot take it from under the add.
package enum BundleSweep {
    private static let held = Mutex<[String: Int]>([:])

    /// Keeps `digest`'s folder from every sweep until ``release(_:)``; holds nest.
    package static func hold(_ digest: String) {
        held.withLock { $0[digest, default: 0] += 1 }
    }

    package static func release(_ digest: String) {
        held.withLock { counts in
            let left = (counts[digest] ?? 1) - 1
            counts[digest] = left > 0 ? left : nil
        }
    }

    /// The bundle folders under `dataDirectory` whose digest `config` (the serialized config document) does not
    /// contain, removed; their digests. File work, so it runs off the event loop.
    @concurrent
    package static func removeUnreferenced(in dataDirectory: String, config: [UInt8]) async -> [String] {
        let root = dataDirectory + "/bundles"
        let files = FileManager.default
        guard let names = try? files.contentsOfDirectory(atPath: root) else { return [] }
        let text = String(decoding: config, as: UTF8.self)
        var removed: [String] = []
        for name in names where isDigest(name) && !text.contains(name) {
            guard held.withLock({ $0[name] == nil }) else { continue }
            if (try? files.removeItem(atPath: root + "/" + name)) != nil { removed.append(name) }
        }
        return removed.sorted()
    }

    /// A folder name the installer makes: 64 lowercase hexadecimal digits. Its own staging folders (`.unpack-…`)
    /// and anything else someone put there are left alone.
    static func isDigest(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
