import Testing
import YrdenTelemetry

@Suite struct SpanQueueTests {
    private func span(_ name: String = "s") -> SpanRecord {
        SpanRecord(
            context: SpanContext(traceID: TraceID.random(), spanID: SpanID.random(), sampled: true),
            parentSpanID: nil,
            name: name,
            kind: .internal,
            startNanos: 1
        )
    }

    @Test func pastTheLimitSpansAreDroppedAndCounted() {
        let queue = SpanQueue(limit: 3, batchSize: 2)
        for _ in 0..<5 { queue.add(span()) }
        #expect(queue.count == 3)
        #expect(queue.droppedQueueFull == 2)
        #expect(queue.take().count == 2)
        #expect(queue.take().count == 1)
        #expect(queue.take().isEmpty)
    }

    @Test func batchesTakeTheOldestFirst() {
        let queue = SpanQueue(limit: 10, batchSize: 2)
        for name in ["a", "b", "c"] { queue.add(span(name)) }
        #expect(queue.take().map(\.name) == ["a", "b"])
        #expect(queue.take().map(\.name) == ["c"])
    }

    @Test func aWaitingExporterIsWokenByAFullBatch() async {
        let queue = SpanQueue(limit: 10, batchSize: 2)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await queue.waitForBatch() }
            queue.add(span())
            queue.add(span())
            await group.next()
        }
        #expect(queue.count == 2)
    }

    @Test func aCancelledWaitReturns() async {
        let queue = SpanQueue(limit: 10, batchSize: 2)
        let waiter = Task { await queue.waitForBatch() }
        waiter.cancel()
        await waiter.value
        #expect(queue.count == 0)
    }
}

@Suite struct TracerTests {
    @Test func aChildJoinsItsParentsTraceAndAnUnsampledOneRecordsNothing() {
        let tracer = Tracer(serviceName: "yrden", sampleRatio: 1, queue: SpanQueue())
        let parent = SpanContext(traceID: TraceID(high: 1, low: 2), spanID: SpanID(3), sampled: true, traceState: "a=b")
        let child = tracer.start("route", kind: .internal, parent: parent)
        #expect(child.context.traceID == parent.traceID)
        #expect(child.context.spanID != parent.spanID)
        #expect(child.context.traceState == "a=b")
        #expect(child.record?.parentSpanID == parent.spanID)
        tracer.end(child)
        #expect(tracer.queue.count == 1)

        let unsampled = SpanContext(traceID: TraceID(high: 1, low: 2), spanID: SpanID(3), sampled: false)
        let quiet = tracer.start("route", kind: .internal, parent: unsampled)
        #expect(!quiet.isRecording)
        #expect(!quiet.context.sampled)
        #expect(quiet.context.traceID == unsampled.traceID)
        tracer.end(quiet)
        #expect(tracer.queue.count == 1)
    }
}

@Suite struct SpanQueueWakeTests {
    @Test func aStoppingExporterIsWokenAndLaterWaitsReturnAtOnce() async {
        let queue = SpanQueue(limit: 10, batchSize: 2)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await queue.waitForBatch() }
            queue.wake()
            await group.next()
        }
        await queue.waitForBatch()  // would wait for a batch that never comes
        #expect(queue.count == 0)
    }
}
