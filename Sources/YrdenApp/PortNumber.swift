import Synchronization

/// A listener's port, known only once it is bound, for a handler made before that (the apps sandbox names the
/// console's origin, and the console the sandbox's).
final class PortNumber: Sendable {
    private let value = Atomic<Int>(0)

    func set(_ port: Int) {
        value.store(port, ordering: .releasing)
    }

    @Sendable func get() -> Int {
        value.load(ordering: .acquiring)
    }
}
