"""A real OTLP/HTTP trace receiver on loopback, for the tracing tests (test_telemetry.py).

``POST /v1/traces`` with ``content-type: application/x-protobuf`` is decoded as an
``ExportTraceServiceRequest`` by the published ``opentelemetry-proto`` package (pinned in requirements.txt),
which is what proves the gateway's own encoding: a body it cannot parse, or one with fields the schema does
not know (a wrong field number or wire type), is answered 400 and kept in ``errors`` for the test to show.

Tests **wait** for spans matching a predicate, with a deadline (``wait_for``), woken by each export as it
arrives; nothing here sleeps and samples. ``status`` makes the receiver refuse every export (a collector that
fails), ``black_hole()`` gives a port that accepts connections and never answers (a hung collector).
"""

from __future__ import annotations

import gzip
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
from google.protobuf.message import DecodeError, Message
from google.protobuf.unknown_fields import UnknownFieldSet
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as SpanProto
from opentelemetry.proto.trace.v1.trace_pb2 import Status

MAX_BODY = 16 * 1024 * 1024
KINDS = {v: k.removeprefix("SPAN_KIND_") for k, v in SpanProto.SpanKind.items()}
STATUSES = {v: k.removeprefix("STATUS_CODE_") for k, v in Status.StatusCode.items()}


@dataclass(frozen=True)
class Span:
    """One decoded span, ids in lowercase hex (``parent_span_id`` is ``""`` for a root)."""

    service: str
    scope: str
    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    kind: str  # SERVER, CLIENT, INTERNAL, PRODUCER, CONSUMER, UNSPECIFIED
    attributes: dict[str, Any]
    status: str  # UNSET, OK, ERROR
    links: tuple[tuple[str, str], ...]  # (trace_id, span_id)
    start_ns: int
    end_ns: int
    resource: dict[str, Any] = field(default_factory=dict)

    @property
    def traceparent_of(self) -> str:
        """The ``traceparent`` that names this span as the parent (sampled)."""
        return f"00-{self.trace_id}-{self.span_id}-01"


@dataclass(frozen=True)
class Export:
    """One POST the receiver answered: its path, headers (lowercase names) and how many spans it held."""

    path: str
    headers: dict[str, str]
    spans: int


def value_of(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value_of(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value_of(kv.value) for kv in v.kvlist_value.values}
    return getattr(v, kind)


def unknown_fields(message: Message, path: str = "") -> list[str]:
    """Where ``message`` holds fields its schema does not define: a gateway that numbered a field wrong."""
    found = [f"{path or message.DESCRIPTOR.name}: field {f.field_number}" for f in UnknownFieldSet(message)]
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None:
            continue
        if descriptor.is_repeated:
            if descriptor.message_type.GetOptions().map_entry:
                continue
            for i, item in enumerate(value):
                found += unknown_fields(item, f"{path}.{descriptor.name}[{i}]")
        else:
            found += unknown_fields(value, f"{path}.{descriptor.name}")
    return found


def decode(body: bytes) -> list[Span]:
    """The spans of one ``ExportTraceServiceRequest``; raises ValueError naming what is wrong."""
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(body)
    except DecodeError as e:
        raise ValueError(f"not an ExportTraceServiceRequest: {e}") from None
    if unknown := unknown_fields(request):
        raise ValueError(f"fields unknown to the OTLP schema: {unknown[:5]}")
    out: list[Span] = []
    for resource_spans in request.resource_spans:
        resource = {kv.key: value_of(kv.value) for kv in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for s in scope_spans.spans:
                if len(s.trace_id) != 16 or len(s.span_id) != 8 or len(s.parent_span_id) not in (0, 8):
                    raise ValueError(f"span {s.name!r}: ids of the wrong length")
                out.append(
                    Span(
                        service=str(resource.get("service.name", "")),
                        scope=scope_spans.scope.name,
                        trace_id=s.trace_id.hex(),
                        span_id=s.span_id.hex(),
                        parent_span_id=s.parent_span_id.hex(),
                        name=s.name,
                        kind=KINDS.get(s.kind, str(s.kind)),
                        attributes={kv.key: value_of(kv.value) for kv in s.attributes},
                        status=STATUSES.get(s.status.code, str(s.status.code)),
                        links=tuple((link.trace_id.hex(), link.span_id.hex()) for link in s.links),
                        start_ns=s.start_time_unix_nano,
                        end_ns=s.end_time_unix_nano,
                        resource=resource,
                    )
                )
    return out


class OtlpReceiver:
    """The receiver; use as a context manager. ``url`` is the OTLP endpoint (``/v1/traces`` is appended by a
    client, as OTEL_EXPORTER_OTLP_ENDPOINT says)."""

    def __init__(self, *, status: int = 200) -> None:
        self.status = status
        self.spans: list[Span] = []
        self.exports: list[Export] = []
        self.errors: list[str] = []
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                length = int(self.headers.get("content-length") or 0)
                if length > MAX_BODY:
                    self._answer(413, b"")
                    return
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                receiver._received(self, body, headers)

            def _answer(self, status: int, body: bytes, content_type: str = "text/plain") -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="otlp-receiver", daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _received(self, handler: Any, body: bytes, headers: dict[str, str]) -> None:
        path = handler.path
        spans: list[Span] = []
        problem = None
        if path != "/v1/traces":
            problem = f"POST to {path}, not /v1/traces"
        elif headers.get("content-type", "").split(";")[0].strip() != "application/x-protobuf":
            problem = f"content-type {headers.get('content-type')!r}, not application/x-protobuf"
        else:
            try:
                if headers.get("content-encoding") == "gzip":
                    body = gzip.decompress(body)
                spans = decode(body)
            except Exception as e:  # whatever the body does to the decoder is the test's failure to show
                problem = f"{type(e).__name__}: {e}"
        with self._changed:
            self.exports.append(Export(path=path, headers=headers, spans=len(spans)))
            if problem is not None:
                self.errors.append(problem)
            elif self.status == 200:
                self.spans.extend(spans)
            self._changed.notify_all()
        if problem is not None:
            handler._answer(400, problem.encode())
        elif self.status != 200:
            handler._answer(self.status, b"refused by the test")
        else:
            handler._answer(200, ExportTraceServiceResponse().SerializeToString(), "application/x-protobuf")

    # -- waiting

    def wait_exports(self, count: int = 1, timeout: float = 15.0) -> list[Export]:
        """Block until at least ``count`` exports arrived; all of them."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.exports) >= count, timeout):
                raise TimeoutError(f"{count} export(s) not received within {timeout}s; got {len(self.exports)}")
            return list(self.exports)

    def wait_for_sync(
        self, predicate: Callable[[Span], bool], count: int = 1, timeout: float = 15.0, what: str = "spans"
    ) -> list[Span]:
        """Block until at least ``count`` received spans match ``predicate``; every match so far."""
        with self._changed:
            ok = self._changed.wait_for(lambda: len([s for s in self.spans if predicate(s)]) >= count, timeout)
            matched = [s for s in self.spans if predicate(s)]
            if not ok:
                raise TimeoutError(
                    f"{what}: {count} span(s) not received within {timeout}s (matched {len(matched)}); "
                    f"received: {self.summary()}; errors: {self.errors}"
                )
            return matched

    async def wait_for(
        self, predicate: Callable[[Span], bool], count: int = 1, timeout: float = 15.0, what: str = "spans"
    ) -> list[Span]:
        """``wait_for_sync`` from a test's event loop (the wait runs in a worker thread)."""
        return await anyio.to_thread.run_sync(lambda: self.wait_for_sync(predicate, count, timeout, what))

    async def trace(self, trace_id: str, names: set[tuple[str, str]], timeout: float = 15.0) -> list[Span]:
        """Wait until trace ``trace_id`` holds a span of each (service, name) in ``names``; all its spans."""

        def complete() -> bool:
            have = {(s.service, s.name) for s in self.spans if s.trace_id == trace_id}
            return names <= have

        def wait() -> list[Span]:
            with self._changed:
                if not self._changed.wait_for(complete, timeout):
                    have = sorted({(s.service, s.name) for s in self.spans if s.trace_id == trace_id})
                    raise TimeoutError(
                        f"trace {trace_id}: missing {sorted(names - set(have))} after {timeout}s; it holds {have}; "
                        f"all received: {self.summary()}; errors: {self.errors}"
                    )
                return [s for s in self.spans if s.trace_id == trace_id]

        return await anyio.to_thread.run_sync(wait)

    def in_trace(self, trace_id: str) -> list[Span]:
        with self._changed:
            return [s for s in self.spans if s.trace_id == trace_id]

    def summary(self) -> list[str]:
        with self._changed:
            return [f"{s.service}:{s.kind}:{s.name}@{s.trace_id[:8]}" for s in self.spans[-40:]]


@contextmanager
def black_hole() -> Iterator[str]:
    """An endpoint that accepts connections and never reads or answers: a collector that hangs."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1024)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
