import Synchronization
import YrdenConfig
import YrdenEngine
import YrdenTransport

/// The engine's channel factory in tests: one scripted ``FakeUpstream`` per server id, no child process and
/// no socket, so the whole engine runs in-process and in milliseconds.
///
/// Every server starts from the factory's default script; a test scripts one server through
/// ``subscript(_:)`` or all of them through ``change(_:)``. A server keeps its script and what it received
/// across reconnections, as the same configured server would.
package final class FakeUpstreams: UpstreamChannelFactory {
    /// The clock handlers wait on; give the gateway's ``TestClock`` to move their delays with its timers.
    package let time: any TimeSource
    /// `open <id>` and `closed <id>` in the order the gateway opened and closed channels.
    package let journal = Recording<String>()

    private struct State {
        var defaults: FakeUpstreamScript
        var servers: [String: FakeUpstream] = [:]
    }

    private let state: Mutex<State>

    package init(_ script: FakeUpstreamScript = FakeUpstreamScript(), time: any TimeSource = SystemTime()) {
        self.time = time
        state = Mutex(State(defaults: script))
    }

    /// Server `id`'s fake, created from the default script on first use (before or after it is opened).
    package subscript(_ id: String) -> FakeUpstream {
        let time = self.time
        return state.withLock { state in
            if let server = state.servers[id] { return server }
            let server = FakeUpstream(id: id, script: state.defaults, time: time)
            state.servers[id] = server
            return server
        }
    }

    /// Edits the default script and every server's: a change applies to connections already open too.
    package func change(_ edit: (inout FakeUpstreamScript) -> Void) {
        let servers = state.withLock { state in
            edit(&state.defaults)
            return Array(state.servers.values)
        }
        servers.forEach { $0.change(edit) }
    }

    /// Channels opened to server `id` so far.
    package func opens(_ id: String) -> Int { self[id].opens }

    /// Ends server `id`'s open connection as a child process that exits would.
    @discardableResult
    package func crash(_ id: String) -> Bool { self[id].crash() }

    package func open(
        _ route: ChannelRoute,
        for spec: ServerSpec,
        handler: UpstreamChannelHandler
    ) throws(UpstreamError) -> any UpstreamChannel {
        let id = spec.id
        let journal = self.journal
        let channel = try self[id].open(handler: handler) { journal.append("closed \(id)") }
        journal.append("open \(id)")
        return channel
    }
}
