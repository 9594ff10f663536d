import Synchronization

/// Where the engine says that work which held much memory has let it go (sessions ended, a large request
/// answered, the pin file written), so that the process can hand that memory back to the system.
///
/// What that means is the composition root's decision, not the engine's: the engine makes no process-wide
/// call of its own. `YrdenApp` installs a trim of glibc's arenas here and tunes the allocator for the whole
/// process (`GlibcHeap`); a process that installs nothing, such as the engine's tests, does nothing.
package enum FreedMemory {
    private static let hook = Mutex<(@Sendable () -> Void)?>(nil)

    /// Makes `release` what ``release()`` runs, for the life of the process.
    package static func install(_ release: @escaping @Sendable () -> Void) {
        hook.withLock { $0 = release }
    }

    /// Says that memory was freed. Called on the event loop, so what is installed must return at once.
    package static func release() {
        hook.withLock { $0 }?()
    }
}
