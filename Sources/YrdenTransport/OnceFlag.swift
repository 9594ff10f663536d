import Synchronization

/// A flag that can be set once; `set()` tells the one caller that set it.
package final class OnceFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    package func set() -> Bool {
        flag.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
