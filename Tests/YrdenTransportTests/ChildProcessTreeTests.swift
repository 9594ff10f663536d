import Glibc
import Synchronization
import Testing
import YrdenLineIO

@testable import YrdenTransport

/// A stdio server's exit is seen from the process, its helpers end with it, and a thread that cannot be
/// started fails the server that needed it rather than the process.
@Suite struct ChildProcessTreeTests {
    /// What a channel reported: its frames as text, and the reason it closed.
    private final class Reports: Sendable {
        let lines = Mutex<[String]>([])
        let closed = Mutex<UpstreamError?>(nil)

        var handler: UpstreamChannelHandler {
            UpstreamChannelHandler(
                frame: { line in self.lines.withLock { $0.append(String(decoding: line, as: UTF8.self)) } },
                closed: { error in self.closed.withLock { $0 = error } },
                log: { _ in }
            )
        }
    }

    private func shell(_ script: String, _ reports: Reports) throws -> StdioChannel {
        try StdioChannel(command: StdioCommand(command: "sh", arguments: ["-c", script]), handler: reports.handler)
    }

    /// Polls `condition` every 20 ms until it holds or `seconds` pass.
    private func eventually(within seconds: Int = 10, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    private func exists(_ pid: pid_t) -> Bool {
        access("/proc/\(pid)", F_OK) == 0
    }

    @Test func theExitIsSeenWhileAGrandchildHoldsStdout() async throws {
        let reports = Reports()
        let channel = try shell("sleep 30 & echo $!; exit 3", reports)
        #expect(try await eventually { reports.closed.withLock { $0 != nil } })
        let reason = reports.closed.withLock { $0 }
        #expect(reason?.message.contains("exited with status 3") == true, "\(String(describing: reason))")
        let helper = try #require(reports.lines.withLock { $0.first }.flatMap { pid_t($0) })
        #expect(try await eventually { !exists(helper) }, "the helper \(helper) outlived its server")
        await channel.close()
    }

    @Test func theHelpersEndWithTheServer() async throws {
        let reports = Reports()
        let channel = try shell("sleep 30 & echo $!; read line", reports)
        #expect(try await eventually { !reports.lines.withLock { $0.isEmpty } })
        let helper = try #require(reports.lines.withLock { $0.first }.flatMap { pid_t($0) })
        #expect(exists(helper))

        await channel.close()  // stdin closes, the shell exits on its own: the helper must go too

        #expect(try await eventually { !exists(helper) }, "the helper \(helper) outlived its server")
        #expect(!exists(channel.processID))
    }

    @Test func aThreadThatCannotStartIsAnError() {
        #expect(throws: ThreadStartError.self) {
            try DetachedThread.start(name: "never", stackBytes: Int.max / 2) {}
        }
    }

    @Test func aDetachedThreadRunsUnderItsName() async throws {
        let seen = Mutex<String?>(nil)
        try DetachedThread.start(name: "yrden-test-thread-long-name") {
            var name = [CChar](repeating: 0, count: 32)
            let file = fopen("/proc/thread-self/comm", "r")
            defer { if let file { fclose(file) } }
            if let file, fgets(&name, 32, file) != nil {
                let text = String(cString: name)
                seen.withLock { $0 = text.hasSuffix("\n") ? String(text.dropLast()) : text }
            }
        }
        #expect(try await eventually { seen.withLock { $0 } != nil })
        #expect(seen.withLock { $0 } == "yrden-test-thre", "Linux keeps the first 15 bytes of a thread's name")
    }
}
