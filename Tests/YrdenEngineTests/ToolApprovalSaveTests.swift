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

    /// Approvals made while nothing else changed since the book was last saved whole are saved as approvals
    /// (a journal line each in the file store), several at once; a listing's change makes the next save whole.
    @Test func approvalsAloneAreSavedAsApprovalsAndAnyOtherChangeWhole() throws {
        final class CountingStore: ToolPinStore {
            let counts = Mutex((whole: 0, approvals: [[PinApproval]]()))
            var location: String { "counting memory" }
            func load() -> PinBook { PinBook() }
            func save(_ book: PinBook) { counts.withLock { $0.whole += 1 } }
            func saveApprovals(_ approvals: [PinApproval], of book: PinBook) {
                counts.withLock { $0.approvals.append(approvals) }
            }
        }
        let store = CountingStore()
        let pins = ToolPins(mode: .enforce, store: store)
        func list(_ description: String) {
            _ = pins.observe("a", tools: Self.tools.map { FakeUpstreamScript.tool($0, description: description) })
        }
        func approve(_ tool: String) throws -> String {
            try pins.approve("a", tool: tool, digest: nil).get().change.to.digest
        }
        list("v1")
        list("v2")
        try pins.saveLatest()
        #expect(store.counts.withLock { $0.whole } == 1)
        let first = try approve("t0")
        try pins.saveLatest()
        let second = try approve("t1")
        let third = try approve("t2")
        try pins.saveLatest()
        #expect(store.counts.withLock { $0.whole } == 1, "no approval rewrote the book")
        #expect(store.counts.withLock { $0.approvals.map { $0.map(\.digest) } } == [[first], [second, third]])
        #expect(store.counts.withLock { $0.approvals.flatMap { $0.map(\.tool) } } == ["t0", "t1", "t2"])
        list("v3")
        _ = try approve("t3")
        try pins.saveLatest()
        #expect(store.counts.withLock { ($0.whole, $0.approvals.count) } == (2, 2), "a changed listing: saved whole")
    }
}
