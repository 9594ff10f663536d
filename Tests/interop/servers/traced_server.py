"""An upstream MCP server that emits its own OpenTelemetry spans, for the tracing tests (test_telemetry.py).

Written with the official Python SDK, whose server middleware opens a SERVER span per request parented on the
W3C trace context in the request's ``_meta`` (SEP-414); spans go through ``opentelemetry-sdk`` and
``opentelemetry-exporter-otlp-proto-http`` (pinned in requirements.txt) to the OTLP endpoint given, exported
as each ends. Each tool also opens a span of its own, ``traced.<tool>``, inside the SDK's, recording what
context arrived: ``traced.meta.traceparent``/``traced.meta.tracestate`` from ``_meta`` and, over HTTP,
``traced.http.traceparent``/``traced.http.tracestate`` from the request headers.

Tools:
- ``echo(text)``: answers one JSON object: ``text``, the ``meta`` and ``http`` trace context it saw (``null``
  where none came) and the ``trace_id`` of its own span;
- ``ask_name()``: a form elicitation of a name, then a greeting (a 2026-07-28 client of a handshake-era server
  makes it a parked call).

Run it as ``python traced_server.py [--otlp URL] [--service NAME]`` (stdio) or with ``--port P`` (Streamable
HTTP; with ``--legacy-sse`` the deprecated HTTP+SSE transport at ``/sse``). ``URL`` is the OTLP endpoint; spans are POSTed to ``URL/v1/traces``; without it none are exported.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Annotated, Any

import anyio
import uvicorn
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from pydantic import BaseModel

server = MCPServer("yrden-interop-traced", version="1.0.0")
tracer = trace.get_tracer("yrden-interop-traced")


def seen_context(ctx: Context) -> dict[str, dict[str, str] | None]:
    """The trace context this request carried, in ``_meta`` and in the HTTP headers."""
    meta: Mapping[str, Any] = ctx.request_context.meta or {}
    headers = ctx.headers

    def pick(source: Mapping[str, Any] | None) -> dict[str, str] | None:
        if source is None or "traceparent" not in source:
            return None
        return {k: str(source[k]) for k in ("traceparent", "tracestate") if k in source}

    return {"meta": pick(meta), "http": pick(headers)}


def record(span: trace.Span, seen: dict[str, dict[str, str] | None]) -> None:
    for where, context in seen.items():
        for key, value in (context or {}).items():
            span.set_attribute(f"traced.{where}.{key}", value)


@server.tool(description="Answer `text` with the trace context this call carried.")
def echo(text: str, ctx: Context) -> str:
    seen = seen_context(ctx)
    with tracer.start_as_current_span("traced.echo") as span:
        record(span, seen)
        trace_id = format(span.get_span_context().trace_id, "032x")
    return json.dumps({"text": text, **seen, "trace_id": trace_id})


class Name(BaseModel):
    name: str


def name_question() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@server.tool(description="Ask the user for a name (form elicitation), then greet it.")
async def ask_name(answer: Annotated[ElicitationResult[Name], Resolve(name_question)], ctx: Context) -> str:
    with tracer.start_as_current_span("traced.ask_name") as span:
        record(span, seen_context(ctx))
        span.set_attribute("traced.answer", answer.action)
    return f"Hello, {answer.data.name}!" if answer.action == "accept" else f"no name ({answer.action})"


def export_to(otlp: str, service: str) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{otlp}/v1/traces", timeout=5)))
    trace.set_tracer_provider(provider)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--otlp", help="the OTLP/HTTP endpoint (spans go to its /v1/traces); none: no export")
    parser.add_argument("--service", default="traced-upstream")
    parser.add_argument("--port", type=int)
    parser.add_argument("--legacy-sse", action="store_true", help="with --port: the HTTP+SSE transport of 2024-11-05")
    args = parser.parse_args()
    if args.otlp:
        export_to(args.otlp, args.service)
    try:
        if args.port is not None:
            app = server.sse_app() if args.legacy_sse else server.streamable_http_app()
            uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
        else:
            anyio.run(server.run_stdio_async)
    finally:
        provider = trace.get_tracer_provider()
        if isinstance(provider, TracerProvider):
            provider.shutdown()


if __name__ == "__main__":
    main()
