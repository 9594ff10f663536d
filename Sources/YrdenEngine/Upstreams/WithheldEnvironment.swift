import Synchronization
import YrdenConfig

/// The variables of the gateway's environment that its stdio children must not inherit: the ones its own
/// secrets come from (``ConfigDocument/secretVariables``).
///
/// Shared by every upstream connection and kept current by whoever changes the config, so a server added at runtime
/// with a header `Bearer ${NEW_TOKEN}` withholds `NEW_TOKEN` from every child started after it. A server
/// that needs such a variable passes it on in its own `env`.
package final class WithheldEnvironment: Sendable {
    private let current: Mutex<Set<String>>
    /// Withheld whatever the document: the secrets of this replica's own file that the running document does
    /// not hold (the store's URL, with a store).
    private let always: Set<String>

    package init(_ names: Set<String> = [], always: Set<String> = []) {
        current = Mutex(names.union(always))
        self.always = always
    }

    /// Withholds what `document`'s secrets refer to, instead of what the previous document's did.
    package func adopt(_ document: ConfigDocument) {
        let names = document.secretVariables.union(always)
        current.withLock { $0 = names }
    }

    package var names: Set<String> { current.withLock { $0 } }
}
