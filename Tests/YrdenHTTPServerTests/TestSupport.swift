import Foundation
import Logging
import Synchronization
import YrdenHTTPServer

/// A flag one side sets and the other polls for, with a generous deadline instead of a fixed sleep.
final class TestSignal: Sendable {
    private let state = Mutex(false)

    func fire() { state.withLock { $0 = true } }
    var isFired: Bool { state.withLock { $0 } }

    /// Waits until fired; false if `seconds` pass first.
    func wait(seconds: Double = 20) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !isFired {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// The blocking variant, for client threads.
    func waitBlocking(seconds: Double = 20) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !isFired {
            if ContinuousClock.now >= deadline { return false }
            usleep(2_000)
        }
        return true
    }
}

/// A thread-safe list of timestamped events, to assert on the order things happened in.
final class EventLog: Sendable {
    private let events = Mutex<[(String, ContinuousClock.Instant)]>([])

    func record(_ name: String) {
        let now = ContinuousClock.now
        events.withLock { $0.append((name, now)) }
    }

    func time(of name: String) -> ContinuousClock.Instant? {
        events.withLock { events in events.first { $0.0 == name }?.1 }
    }

    var names: [String] { events.withLock { $0.map(\.0) } }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

let testLogger: Logger = {
    var logger = Logger(label: "yrden.http.test")
    logger.logLevel = .warning
    return logger
}()

func testConfiguration(
    maxBodyBytes: Int = 16 << 20,
    requestTimeout: Duration = .seconds(30)
) -> HTTPServerConfiguration {
    HTTPServerConfiguration(
        host: "127.0.0.1",
        port: 0,
        threadPoolSize: 2,
        maxBodyBytes: maxBodyBytes,
        requestTimeout: requestTimeout
    )
}

/// Runs a server on a free loopback port while `body` runs, then shuts it down by cancelling `run()` and waits
/// for it to return.
func withServer(
    _ configuration: HTTPServerConfiguration = testConfiguration(),
    handler: @escaping HTTPHandler,
    _ body: @escaping @Sendable (HTTPServer) async throws -> Void
) async throws {
    let server = try HTTPServer(configuration: configuration, logger: testLogger, handler: handler)
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        do {
            try await body(server)
        } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
        try await group.waitForAll()
    }
}

/// Total user + system CPU time this process has used so far.
func processCPUTime() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// CPU time of individual threads of this process, read from `/proc/self/task`.
enum ThreadCPU {
    /// The ids of libmicrohttpd's threads (it names them `MHD-worker`, `MHD-single`, …).
    static func libmicrohttpdThreads() -> Set<Int> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(
            tasks.compactMap { task in
                let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
                return name.hasPrefix("MHD") ? Int(task) : nil
            }
        )
    }

    /// User + system CPU seconds the given threads have used (threads that have exited count as 0).
    static func seconds(_ threads: Set<Int>) -> Double {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        var ticks = 0
        for thread in threads {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(thread)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm)": state is field 3, utime field 14, stime field 15.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            if fields.count > 12 { ticks += (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) }
        }
        return Double(ticks) / ticksPerSecond
    }
}
