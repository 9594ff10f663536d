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

    package init(_ names: Set<String> = []) {
        current = Mutex(names)
    }

    /// Withholds what `document`'s secrets refer to, instead of what the previous document's did.
    package func adopt(_ document: ConfigDocument) {
        let names = document.secretVariables
        current.withLock { $0 = names }
    }

    package var names: Set<String> { current.withLock { $0 } }
}
