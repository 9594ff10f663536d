import Dispatch
import Logging
import Synchronization
import Testing
import YrdenConfig
import YrdenProtocol
import YrdenTesting

@testable import YrdenEngine

/// An approval is a short locked step for the request that makes it: the pin file is written by the gateway's
/// pin saver, once for every approval made meanwhile, and each approval is answered only once the file holds it.
@Suite struct ToolApprovalSaveTests {
    /// Marks the tasks that approve, so the store can tell whether one of them wrote the file.
    @TaskLocal static var approving = false

    /// A store whose writes wait while it is closed (at most 5 s each), and that remembers who wrote.
    final class GatedStore: ToolPinStore {
        private struct State {
            var book = PinBook()
            var saves = 0
            var savesByApprovers = 0
        }

        private let state = Mutex(State())
        private let gate = DispatchSemaphore(value: 0)
        private let closed = Mutex(false)

        var location: String { "gated memory" }

        func load() -> PinBook { state.withLock { $0.book } }

        func save(_ book: PinBook) {
            let byApprover = ToolApprovalSaveTests.approving
            if closed.withLock({ $0 }) { _ = gate.wait(timeout: .now() + 5) }
            state.withLock { state in
                state.book = book
                state.saves += 1
                if byApprover { state.savesByApprovers += 1 }
            }
        }

        func close() { closed.withLock { $0 = true } }

        func open() {
            closed.withLock { $0 = false }
            for _ in 0..<64 { gate.signal() }
        }

        var saved: PinBook { load() }
        var saves: Int { state.withLock { $0.saves } }
        var savesByApprovers: Int { state.withLock { $0.savesByApprovers } }
    }

    /// How many approvals were answered.
    final class Answered: Sendable {
        let count = Atomic(0)
    }

    private static let tools = (0..<10).map { "t\($0)" }

    private static func listing(_ description: String) -> [JSONObject] {
        tools.map { FakeUpstreamScript.tool($0, description: description) }
    }

    /// Polls a lasting condition (it never reverts once true) with a deadline that only matters when broken.
    private static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test func approvalsAreSavedByTheSaverTogetherAndAnsweredAfterTheirSave() async throws {
        let store = GatedStore()
        let channels = FakeUpstreams()
        channels["a"].change { $0.tools = Self.listing("v1") }
        let running = RunningGateway(
            [stdioSpec("a")],
            channels: channels,
            toolPins: ToolPins(mode: .enforce, store: store)
        )
        #expect(await running.connected("a"))
        running["a"].change { $0.tools = Self.listing("v2") }
        running["a"].notify(MCPMethod.toolsListChanged)
        #expect(await running.until { $0.catalog.withheldTools.count == Self.tools.count })
        #expect(await Self.eventually { store.saved.servers["a"]?.values.allSatisfy(\.isChanged) == true })
        let savesBefore = store.saves

        store.close()
        let answered = Answered()
        let gateway = running.gateway
        let approvals = Task {
            await withTaskGroup(of: Bool.self) { group in
                for tool in Self.tools {
                    group.addTask {
                        await Self.$approving.withValue(true) {
                            let approved = (try? await gateway.pinning.approve(tool, of: "a")) != nil
                            answered.count.add(1, ordering: .sequentiallyConsistent)
                            // Answered: the file holds the approval already.
                            return approved && store.saved["a", tool]?.isChanged == false
                        }
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
        }
        // Every approval has changed the book while the file's write is held: none waited for the disk.
        #expect(
            await Self.eventually { gateway.pinning.book.servers["a"]?.values.allSatisfy { !$0.isChanged } == true }
        )
        #expect(answered.count.load(ordering: .sequentiallyConsistent) == 0, "no approval is answered before its save")
        store.open()
        let results = await approvals.value
        #expect(results.count == Self.tools.count && results.allSatisfy { $0 })
        #expect(store.savesByApprovers == 0, "the approving requests never write the file themselves")
        #expect(store.saves - savesBefore <= 3, "10 approvals made together share their writes")
        #expect(await running.until { $0.catalog.withheldTools.isEmpty })
        await running.stop()
    }

    @Test func anApprovalWhoseSaveFailsSaysSoAndStaysApprovedForThisRun() async throws {
        struct FailingStore: ToolPinStore {
            var location: String { "nowhere" }
            func load() -> PinBook { PinBook() }
            func save(_ book: PinBook) throws { throw PinBookFormatError("disk full") }
        }
        let channels = FakeUpstreams()
        channels["a"].change { $0.tools = [FakeUpstreamScript.tool("echo", description: "v1")] }
        let running = RunningGateway(
            [stdioSpec("a")],
            channels: channels,
            toolPins: ToolPins(mode: .enforce, store: FailingStore())
        )
        #expect(await running.connected("a"))
        running["a"].change { $0.tools = [FakeUpstreamScript.tool("echo", description: "v2")] }
        running["a"].notify(MCPMethod.toolsListChanged)
        #expect(await running.until { $0.catalog.withheldTools["a__echo"] != nil })
        await #expect(throws: ToolApprovalError.notSaved("disk full")) {
            try await running.gateway.pinning.approve("echo", of: "a")
        }
        #expect(await running.until { $0.catalog.withheldTools.isEmpty })
        await running.stop()
    }
}
