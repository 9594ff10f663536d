import Logging
import YrdenControl
import YrdenEngine

extension AdminAPI {
    /// After a change that may have dropped the last entry naming a bundle: the bundles no entry names are
    /// removed from the data directory (off the event loop), and said in the log.
    func sweepBundles() async {
        guard let dataDirectory else { return }
        let config = await store.serializedDocument()
        let removed = await BundleSweep.removeUnreferenced(in: dataDirectory, config: config)
        guard !removed.isEmpty else { return }
        logger.info("admin API: unused bundles removed", metadata: ["bundles": "\(removed.joined(separator: ", "))"])
    }
}
