import Logging
import Synchronization
import YrdenControl
import YrdenEngine
import YrdenSharedState
import YrdenStorage

/// What replicas share through the store, as this one found it at start.
struct SharedState: Sendable {
    let database: SharedStateDatabase
    let config: SharedConfig
    let snapshot: SharedConfig.Snapshot
    /// OAuth tokens and registrations, the `requestState` key: sealed, mirrored here.
    let secrets: MirroredDocuments
    let box: SecretBox
    /// Who hears of a secret another replica changed (set once the OAuth sign-ins exist).
    let secretChanges: ChangeRelay
    /// The key every replica seals `requestState` tokens with.
    let requestStateKey: [UInt8]
    /// The tool pin book, mirrored here.
    let pins: MirroredDocuments
    /// Who hears of a pin book another replica saved (set once the gateway exists).
    let pinChanges: ChangeRelay
    /// What this replica's own file's secrets refer to (the store's URL among them), which the shared
    /// document does not hold and no child may inherit.
    let ownSecretVariables: Set<String>

    var secretStore: SharedSecretStore { SharedSecretStore(documents: secrets, box: box) }

    /// Has `gateway` take in every pin book another replica saves.
    func applyPins(to gateway: Gateway, logger: Logger) {
        let pins = self.pins
        pinChanges.listen { _ in
            do {
                await gateway.pinning.adoptShared(try SharedToolPinStore.book(from: pins.load(SharedToolPinStore.name)))
            } catch {
                logger.error("the tool pins in the store cannot be read", metadata: ["reason": "\(error)"])
            }
        }
    }
}

/// A late-bound listener: the store's mirrors exist before what must hear of their changes.
final class ChangeRelay: Sendable {
    private let listener = Mutex<(@Sendable (String) async -> Void)?>(nil)

    func listen(_ body: @escaping @Sendable (String) async -> Void) {
        listener.withLock { $0 = body }
    }

    func tell(_ name: String) async {
        await listener.withLock { $0 }?(name)
    }
}
