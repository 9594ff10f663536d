import CoreMetrics
import Dispatch
import Glibc
import Synchronization
import YrdenLineIO
import YrdenProtocol

/// The audit trail: records queued by whoever makes them (the event loop, a handler), written as chained
/// lines (``AuditChain``) by a thread of its own, which rotates the file (``AuditFile``).
///
/// Nothing that records ever waits for the disk. The queue holds at most ``maxQueued`` records; a record that
/// finds it full is lost, counted (`yrden_audit_records_lost_total{reason="queue_full"}`), and the trail itself
/// says so: the writer's next line is a `"kind": "lost"` record with how many and why. A batch the file did not
/// take (a full disk) is counted and said the same way (`reason="write_failed"`), and the file is reopened for
/// the next one.
package final class AuditTrail: Sendable {
    package static let maxQueued = 4_096
    package static let linesMetric = "yrden_audit_lines_total"
    package static let lostMetric = "yrden_audit_records_lost_total"
    /// Each string field of a record is cut to this many bytes, so a line stays small whatever a client sends.
    package static let maxFieldBytes = 512
    /// How long the writer gathers records after the first wakes it: the most a line waits for the disk.
    static let lingerMicroseconds: UInt32 = 10_000

    private struct Queue {
        var records: [JSONObject] = []
        /// Lost since the writer last said so, by reason.
        var lostToQueue = 0
        var writing = false
    }

    /// What only the writer thread touches: the file and the chain.
    private final class WriterState: @unchecked Sendable {
        var file: AuditFile
        var chain: AuditChain
        var lostToWrites = 0
        var lastFailure: String?

        init(file: AuditFile, chain: AuditChain) {
            self.file = file
            self.chain = chain
        }
    }

    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let writer: WriterState
    private let queueBound: Int
    package let path: String

    /// Opens `path` (continuing its chain) and starts the writer thread. Throws when the file cannot be opened
    /// or no thread can be started: a gateway asked to audit does not run without its trail.
    package convenience init(path: String, maxBytes: Int, keep: Int) throws(AuditFileError) {
        try self.init(path: path, maxBytes: maxBytes, keep: keep, queueBound: Self.maxQueued)
        try startWriter()
    }

    /// A trail whose writer is started by ``startWriter()``: tests fill its queue first.
    init(path: String, maxBytes: Int, keep: Int, queueBound: Int) throws(AuditFileError) {
        self.path = path
        self.queueBound = queueBound
        var file = AuditFile(path: path, maxBytes: maxBytes, keep: keep)
        let chain = try file.open()
        writer = WriterState(file: file, chain: chain)
    }

    /// Starts the writer thread (once).
    func startWriter() throws(AuditFileError) {
        do {
            try DetachedThread.start(name: "yrden-audit", stackBytes: 128 * 1024) { [self] in
                while true { writeNext() }
            }
        } catch {
            throw AuditFileError(message: "cannot start the audit writer thread: \(error)")
        }
    }

    /// Queues `record` with the time now, or counts it lost when the queue is full. Never blocks.
    package func record(_ record: JSONObject) {
        var stamped = JSONObject()
        stamped["time"] = .string(RFC3339.string(epochSeconds: Self.now(), fractionDigits: 3))
        for (key, value) in record { stamped[key] = Self.capped(value) }
        let wakeWriter = queue.withLock { queue -> Bool? in
            guard queue.records.count < queueBound else {
                queue.lostToQueue += 1
                return nil
            }
            let wasIdle = queue.records.isEmpty && !queue.writing
            queue.records.append(stamped)
            return wasIdle
        }
        switch wakeWriter {
        case nil: Counter(label: Self.lostMetric, dimensions: [("reason", "queue_full")]).increment()
        case true?: wake.signal()
        case false?: break
        }
    }

    /// Waits up to `deadline` for what was recorded so far to be written: at shutdown, and in tests.
    package func flush(within deadline: Duration = .seconds(3)) {
        let end = ContinuousClock.now + deadline
        while !queue.withLock({ $0.records.isEmpty && !$0.writing }), ContinuousClock.now < end {
            usleep(1_000)
        }
    }

    /// Records waiting now.
    package var waiting: Int { queue.withLock { $0.records.count } }

    /// One pass of the writer: waits for records, links and writes them in one go, a `lost` record first when
    /// some were lost since the last pass.
    private func writeNext() {
        let pending = queue.withLock { queue -> Bool in
            // Marked as writing from here: records that come during the linger below wake no one.
            queue.writing = !queue.records.isEmpty || queue.lostToQueue > 0
            return queue.writing
        }
        guard pending else {
            wake.wait()
            return
        }
        // What comes in the next few milliseconds goes in the same write: under steady calls this thread is woken
        // (a system call on the event loop) and the file written once per linger, not once per call.
        usleep(Self.lingerMicroseconds)
        let (records, lostToQueue) = queue.withLock { queue -> ([JSONObject], Int) in
            let records = queue.records
            let lost = queue.lostToQueue
            queue.records.removeAll(keepingCapacity: true)
            queue.lostToQueue = 0
            queue.writing = !records.isEmpty || lost > 0
            return (records, lost)
        }
        defer { queue.withLock { $0.writing = false } }
        var chain = writer.chain
        var lines: [[UInt8]] = []
        lines.reserveCapacity(records.count + 2)
        if writer.lostToWrites > 0 {
            let lost = Self.lostRecord(writer.lostToWrites, reason: "write_failed", detail: writer.lastFailure)
            lines.append(chain.link(lost) + [UInt8(ascii: "\n")])
        }
        if lostToQueue > 0 {
            lines.append(
                chain.link(Self.lostRecord(lostToQueue, reason: "queue_full", detail: nil)) + [UInt8(ascii: "\n")]
            )
        }
        for record in records { lines.append(chain.link(record) + [UInt8(ascii: "\n")]) }
        do {
            try writer.file.append(lines)
            writer.chain = chain
            writer.lostToWrites = 0
            writer.lastFailure = nil
            Counter(label: Self.linesMetric).increment(by: lines.count)
        } catch {
            // The chain stays where the file is: the next batch links to the last line written.
            writer.lostToWrites += records.count
            writer.lastFailure = error.message
            Counter(label: Self.lostMetric, dimensions: [("reason", "write_failed")]).increment(by: records.count)
        }
    }

    private static func lostRecord(_ count: Int, reason: String, detail: String?) -> JSONObject {
        var record: JSONObject = [
            "time": .string(RFC3339.string(epochSeconds: now(), fractionDigits: 3)),
            "kind": "lost",
            "count": .int(count),
            "reason": .string(reason),
        ]
        if let detail { record["detail"] = .string(detail) }
        return record
    }

    /// A string cut to ``maxFieldBytes`` (at a character boundary); other values as they are.
    private static func capped(_ value: JSONValue) -> JSONValue {
        guard case .string(let text) = value, text.utf8.count > maxFieldBytes else { return value }
        // A character cut in two becomes U+FFFD: the line stays valid UTF-8.
        return .string(String(decoding: text.utf8.prefix(maxFieldBytes - 3), as: UTF8.self) + "...")
    }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

extension AuditFileError {
    init(message: String) { self.message = message }
}
