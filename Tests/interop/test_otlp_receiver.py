"""The OTLP receiver the tracing tests rely on (otlp_receiver.py): what the OpenTelemetry SDK's own exporter
sends is decoded field for field, and a body the schema does not describe is refused, not half read; so a
span the gateway encodes wrong fails test_telemetry.py instead of passing unseen."""

from __future__ import annotations

import httpx2
import pytest
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from otlp_receiver import OtlpReceiver


def test_spans_of_the_sdk_exporter_arrive_whole():
    with OtlpReceiver() as rx:
        provider = TracerProvider(resource=Resource.create({"service.name": "receiver-check"}))
        provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{rx.url}/v1/traces", timeout=5)))
        tracer = provider.get_tracer("check")
        with tracer.start_as_current_span("outer", kind=trace.SpanKind.SERVER) as outer:
            outer.set_attributes({"s": "text", "i": 7, "b": True, "d": 0.5})
            with tracer.start_as_current_span("inner", kind=trace.SpanKind.CLIENT) as inner:
                inner.set_status(trace.StatusCode.ERROR)
        provider.shutdown()
        spans = rx.wait_for_sync(lambda s: s.service == "receiver-check", count=2)
    by_name = {s.name: s for s in spans}
    outer_span, inner_span = by_name["outer"], by_name["inner"]
    assert outer_span.kind == "SERVER" and inner_span.kind == "CLIENT"
    assert inner_span.parent_span_id == outer_span.span_id and outer_span.parent_span_id == ""
    assert inner_span.trace_id == outer_span.trace_id == format(outer.get_span_context().trace_id, "032x")
    assert outer_span.attributes == {"s": "text", "i": 7, "b": True, "d": 0.5}
    assert inner_span.status == "ERROR"
    assert outer_span.start_ns <= inner_span.start_ns <= inner_span.end_ns <= outer_span.end_ns
    assert not rx.errors


@pytest.mark.parametrize(
    "body, problem",
    [
        (b"\x0a\x03\x0a\x01", "not an ExportTraceServiceRequest"),  # a length past the end
        (b"\x0a\x02\x78\x01", "unknown to the OTLP schema"),  # resource_spans holding field 15, which it has not
    ],
)
def test_a_body_the_schema_does_not_describe_is_refused(body, problem):
    with OtlpReceiver() as rx:
        answer = httpx2.post(f"{rx.url}/v1/traces", content=body, headers={"content-type": "application/x-protobuf"})
    assert answer.status_code == 400, answer.text
    assert problem in rx.errors[0], rx.errors
    assert rx.spans == []


def test_json_is_refused():
    with OtlpReceiver() as rx:
        answer = httpx2.post(f"{rx.url}/v1/traces", json={"resourceSpans": []})
    assert answer.status_code == 400 and "content-type" in rx.errors[0]
