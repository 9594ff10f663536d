import ServiceLifecycle
import YrdenControl
import YrdenSharedState

/// Applies what other replicas change, as the store announces it, until graceful shutdown.
struct SharedStateFeed: Service {
    let shared: SharedState
    let store: ConfigStore

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await shared.database.follow { change in
                await store.apply(change)
                await shared.secrets.apply(change)
                await shared.pins.apply(change)
            }
        }
    }
}
