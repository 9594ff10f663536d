import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import Prometheus
import ServiceLifecycle
import Synchronization
import YrdenConfig
import YrdenTelemetry

/// Sends the tracer's spans to the OTLP/HTTP collector, off the event loop: a batch (≤ 512 spans) when one is
/// full or every second, one request in flight, each within 10 s; a batch the collector did not take is
/// dropped and counted, never retried (a dead collector must cost the gateway nothing but the count). At
/// graceful shutdown what waits is sent once more, within 2 s.
struct OTLPExporter: Service, CustomStringConvertible {
    let tracer: Tracer
    let settings: OTLPExporterSettings
    let client: HTTPClient
    let metrics: PrometheusCollectorRegistry
    let logger: Logger

    /// What the service group logs it as: never its settings, whose headers are the collector's credentials.
    var description: String { "OTLPExporter" }

    static let interval: Duration = .seconds(1)
    static let deadline: TimeAmount = .seconds(10)
    static let finalFlush: TimeAmount = .seconds(2)

    static let exportedMetric = "yrden_telemetry_spans_exported_total"
    static let droppedMetric = "yrden_telemetry_spans_dropped_total"

    func run() async throws {
        let meters = ExportMeters(metrics: metrics)
        // Stopped by a flag, not by cancellation: a cancelled wait returned into a `take()` whose batch was then
        // never sent, and a cancelled POST loses its batch too (the shutdown's last spans, 1 run in 6).
        await withGracefulShutdownHandler {
            while !meters.isStopping, !Task.isCancelled {
                await waitForBatchOrInterval()
                var batch = tracer.queue.take()
                while !batch.isEmpty {
                    await send(batch, within: Self.deadline, meters)
                    let more = !meters.isStopping && tracer.queue.count >= tracer.queue.batchSize
                    batch = more ? tracer.queue.take() : []
                }
            }
        } onGracefulShutdown: {
            meters.stop()
            tracer.queue.wake()
        }
        // The last spans (the shutdown's own among them), in one bounded pass.
        let end = NIODeadline.now() + Self.finalFlush
        var batch = tracer.queue.take()
        while !batch.isEmpty, NIODeadline.now() < end {
            await send(batch, within: end - NIODeadline.now(), meters)
            batch = tracer.queue.take()
        }
    }

    /// Sends one batch and counts what became of it (and of the spans the full queue dropped meanwhile).
    private func send(_ batch: [SpanRecord], within deadline: TimeAmount, _ meters: ExportMeters) async {
        let accepted = await post(batch, within: deadline)
        if meters.record(batch.count, accepted: accepted, droppedQueueFull: tracer.queue.droppedQueueFull) {
            logger.warning("the OTLP collector did not take a batch of spans; they are dropped and counted")
        }
    }

    /// Returns when a full batch waits or the interval has passed, whichever comes first.
    private func waitForBatchOrInterval() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: Self.interval) }
            group.addTask { await tracer.queue.waitForBatch() }
            await group.next()
            group.cancelAll()
        }
    }

    /// POSTs one batch; whether the collector answered 2xx within the deadline.
    private func post(_ batch: [SpanRecord], within deadline: TimeAmount) async -> Bool {
        let body = OTLPTraceEncoding.exportRequest(batch, serviceName: tracer.serviceName)
        var request = HTTPClientRequest(url: settings.tracesURL)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-protobuf")
        for (name, value) in settings.headers { request.headers.replaceOrAdd(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: deadline)
            // The answer's body is small (a partial-success message at most); read and drop it, bounded.
            _ = try? await response.body.collect(upTo: 64 << 10)
            return (200..<300).contains(response.status.code)
        } catch {
            // The error names the URL at most; the headers (the collector's credentials) never reach a log.
            logger.debug("OTLP export failed", metadata: ["error": "\(type(of: error))"])
            return false
        }
    }
}

/// The exporter's counters on `/metrics`, and whether the collector's outage was already said in the log.
private final class ExportMeters: Sendable {
    let exported: Counter
    let queueFull: Counter
    let exportFailed: Counter
    private let state = Mutex((countedQueueFull: UInt64(0), warned: false))
    private let stopping = Atomic<Bool>(false)

    /// Graceful shutdown began: the loop ends after the batch in hand, and the final flush sends the rest.
    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    func stop() { stopping.store(true, ordering: .releasing) }

    init(metrics: PrometheusCollectorRegistry) {
        exported = metrics.makeCounter(name: OTLPExporter.exportedMetric, help: "Spans the OTLP collector accepted")
        let help = "Spans dropped: the queue was full (2,048 waiting), or the collector did not take them"
        queueFull = metrics.makeCounter(
            name: OTLPExporter.droppedMetric,
            labels: [("reason", "queue_full")],
            help: help
        )
        exportFailed = metrics.makeCounter(
            name: OTLPExporter.droppedMetric,
            labels: [("reason", "export_failed")],
            help: help
        )
    }

    /// Counts a batch sent; `true` when a failure should be logged (the first of an outage, not every batch).
    func record(_ count: Int, accepted: Bool, droppedQueueFull total: UInt64) -> Bool {
        (accepted ? exported : exportFailed).increment(by: Int64(count))
        let (newlyDropped, warn) = state.withLock { state -> (UInt64, Bool) in
            let dropped = total > state.countedQueueFull ? total - state.countedQueueFull : 0
            state.countedQueueFull = max(state.countedQueueFull, total)
            let warn = !accepted && !state.warned
            state.warned = !accepted
            return (dropped, warn)
        }
        if newlyDropped > 0 { queueFull.increment(by: Int64(newlyDropped)) }
        return warn
    }
}
