"""OpenTelemetry traces through the gateway, as an operator's collector receives them.

A real OTLP/HTTP receiver (``otlp_receiver.py``, decoding with the published ``opentelemetry-proto``) takes
the gateway's spans and those of a traced SDK upstream (``servers/traced_server.py``, which emits its own
spans through the OpenTelemetry SDK and says what trace context reached it). A client sends a W3C
``traceparent`` in ``_meta`` (SEP-414) or as an HTTP header; the test then waits for the spans and checks that
the client's trace id is on every one, the gateway's SERVER span is the client's span's child, and the
upstream's span is the child of the gateway's CLIENT span: one trace end to end. Clients of both eras (the SDK
2.x in ``legacy`` and ``auto`` modes, the SDK 1.x, raw requests, a host of ``yrden stdio``), upstreams of both
eras (stdio and Streamable HTTP, pinned ``2025-11-25`` and ``2026-07-28``, and legacy HTTP+SSE), the headers of
a batch POST, of a legacy SSE POST and of a WebSocket upgrade, WebSockets end to end (``/ws`` to a
``"type": "websocket"`` upstream, the SDK 1.x's server), the gateway's own requests (handshake, lists), the
parked call of a 2026-07-28 client and a handshake-era upstream, the sampler, a dead collector and the queue's
bound, the flush at shutdown, the collector's headers, JSON logs, the ``OTEL_*`` variables, OAuth refreshes (a
server's own and a user's), a config change and a bad ``telemetry`` config.

Waiting is on the receiver (each export wakes it), never a sleep. Where a test shows that spans were *not*
exported, it first waits for the spans of a later, sampled call: the gateway exports in the order spans end,
so what an earlier call would have exported has arrived by then.
"""

from __future__ import annotations

import json
import re
import secrets
import statistics
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import websocket
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from harness import (
    INTEROP_DIR,
    LEGACY_VERSION,
    MODERN_VERSION,
    PYTHON,
    REPO_ROOT,
    Gateway,
    answer_to,
    await_until,
    clean_env,
    free_port,
    listening,
    mcp_session,
    raw_mcp,
    start_gateway,
    text_of,
    wait_until,
)
from oauth_peer import OAuthServer, oauth_server  # noqa: F401 (oauth_server is a fixture)
from otlp_receiver import OtlpReceiver, Span, black_hole
from test_oauth_gateway import Rig, rig, whoami  # noqa: F401 (rig is a fixture)
from test_per_user import ALICE, BOB, client_id_of, operator_signs_in, whoami_as
from test_per_user import ADMIN_TOKEN as PER_USER_ADMIN
from test_per_user_sign_in import signed_in

TRACED_SERVER = INTEROP_DIR / "servers" / "traced_server.py"
VENV_1X = REPO_ROOT / ".venv-1x" / "bin" / "python"
CLIENT_1X = INTEROP_DIR / "clients" / "traced_client_1x.py"
SERVICE = "yrden-under-test"
UPSTREAM_SERVICE = "traced-upstream"
ADMIN_TOKEN = "adm-telemetry-test"
# Each upstream of the module's gateway: (transport, pinned era).
UPSTREAMS = {
    "sh": ("stdio", LEGACY_VERSION),
    "sm": ("stdio", MODERN_VERSION),
    "hh": ("http", LEGACY_VERSION),
    "hm": ("http", MODERN_VERSION),
    "ls": ("sse", LEGACY_VERSION),  # the legacy HTTP+SSE transport, of the handshake era only
}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "yrden-interop-raw", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}
BURST = 2000  # calls made while the collector hangs
TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")


def new_context(sampled: bool = True) -> tuple[str, str, str]:
    """A fresh (trace id, span id, traceparent) as a client's tracer would make them."""
    trace_id, span_id = secrets.token_hex(16), secrets.token_hex(8)
    return trace_id, span_id, f"00-{trace_id}-{span_id}-{'01' if sampled else '00'}"


def traced_entry(otlp: str | None, era: str) -> dict[str, Any]:
    """The traced upstream over stdio, pinned to ``era``, exporting its spans to ``otlp`` (None: not at all)."""
    args = [str(TRACED_SERVER), *(["--otlp", otlp] if otlp else [])]
    return {"command": PYTHON, "args": args, "protocol": era}


def telemetry(endpoint: str, **more: Any) -> dict[str, Any]:
    return {"otlp": {"endpoint": endpoint}, "sampleRatio": 1.0, "serviceName": SERVICE, **more}


@contextmanager
def traced_over_http(otlp: str, log_path: Path, *flags: str) -> Iterator[str]:
    """``servers/traced_server.py`` over Streamable HTTP (``--legacy-sse``: HTTP+SSE) on a free port, exporting
    to ``otlp``: its URL (``/mcp``, or ``/sse``)."""
    port = free_port()
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [PYTHON, str(TRACED_SERVER), "--otlp", otlp, "--port", str(port), *flags],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=clean_env(),
        )
    try:
        wait_until(lambda: listening(port), 20, "the traced server listening")
        yield f"http://127.0.0.1:{port}/{'sse' if flags else 'mcp'}"
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as rx:
        yield rx


@pytest.fixture(scope="module")
def traced(yrden: Path, receiver: OtlpReceiver, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    """One gateway for the module, tracing everything to ``receiver``, with the traced upstream five times:
    ``sh``/``sm`` over stdio, ``hh``/``hm`` over Streamable HTTP, each pinned to the era of its second letter,
    and ``ls`` over the legacy HTTP+SSE transport."""
    tmp = tmp_path_factory.mktemp("telemetry")
    with (
        traced_over_http(receiver.url, tmp / "traced-http.log") as url,
        traced_over_http(receiver.url, tmp / "traced-sse.log", "--legacy-sse") as sse_url,
    ):
        servers: dict[str, Any] = {}
        for server_id, (transport, era) in UPSTREAMS.items():
            if transport == "stdio":
                servers[server_id] = traced_entry(receiver.url, era)
            elif transport == "sse":
                servers[server_id] = {"url": sse_url, "type": "sse"}
            else:
                servers[server_id] = {"url": url, "protocol": era}
        config = {
            "gateway": {"adminToken": ADMIN_TOKEN},
            "telemetry": telemetry(receiver.url),
            "mcpServers": servers,
        }
        gw = start_gateway(yrden, config, tmp / "gateway")
        try:
            yield gw
        finally:
            gw.stop()


def gateway_spans(spans: list[Span]) -> list[Span]:
    return [s for s in spans if s.service == SERVICE]


def one(spans: list[Span], what: str, **where: Any) -> Span:
    found = [s for s in spans if all(getattr(s, k) == v for k, v in where.items())]
    assert len(found) == 1, (
        f"{what}: expected one span with {where}, got {len(found)}: {[(s.service, s.kind, s.name) for s in spans]}"
    )
    return found[0]


def seen_by_upstream(result_text: str) -> dict[str, Any]:
    """What the traced upstream's ``echo`` said it received."""
    return json.loads(result_text)


def ancestors(span: Span, by_id: dict[str, Span]) -> list[Span]:
    """``span``'s parents within ``by_id``, nearest first, up to the root of that set."""
    out: list[Span] = []
    while span.parent_span_id in by_id and len(out) < 32:
        span = by_id[span.parent_span_id]
        out.append(span)
    return out


def metric(text: str, name: str, **labels: str) -> float | None:
    """The value of ``name{labels}`` (or ``name`` without labels) in Prometheus text, or None."""
    for line in text.splitlines():
        if line.startswith(name + " ") and not labels:
            return float(line.rsplit(" ", 1)[1])
        if not line.startswith(name + "{"):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line[: line.index("}")]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


def check_joined(spans: list[Span], trace_id: str, client_span: str, called: str, upstream: str) -> dict[str, Span]:
    """The gateway's SERVER, routing and CLIENT spans and the upstream's SERVER span of one ``tools/call``,
    checked to form one chain: client span → gateway SERVER → route → gateway CLIENT → upstream SERVER."""
    assert all(s.trace_id == trace_id for s in spans)
    ours = gateway_spans(spans)
    server = one(ours, "the gateway's request span", kind="SERVER")
    client = one(ours, "the gateway's upstream span", kind="CLIENT")
    up = one(spans, "the upstream's own span", service=UPSTREAM_SERVICE, kind="SERVER")
    assert server.name == f"tools/call {called}", server.name
    assert server.parent_span_id == client_span, "the gateway's SERVER span is not the child of the client's span"
    route = one(ours, "the routing decision", name="route")
    assert route.kind == "INTERNAL", route
    assert route.parent_span_id == server.span_id, "the routing span is not the request span's child"
    assert client.parent_span_id == route.span_id, "the upstream span is not the routing span's child"
    assert route.attributes.get("yrden.server") == upstream, route.attributes
    assert route.attributes.get("yrden.tool.upstream_name") == "echo", route.attributes
    assert up.parent_span_id == client.span_id, "the upstream's span is not the child of the gateway's CLIENT span"
    assert server.start_ns <= client.start_ns <= client.end_ns <= server.end_ns, (
        "the CLIENT span is not inside the SERVER span"
    )
    assert server.status != "ERROR" and client.status != "ERROR", (server.status, client.status)
    return {"server": server, "client": client, "upstream": up}


# ---------------------------------------------------------------------------
# One trace, end to end


@pytest.mark.parametrize("upstream", list(UPSTREAMS))
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_trace_in_meta_runs_through_the_gateway_into_the_upstream(traced, receiver, mode, upstream):
    """The SDK client sends ``_meta.traceparent``; its trace id is on the gateway's spans and the upstream's,
    each parented on the one before, and the upstream is sent the gateway's CLIENT span as its parent (the
    client's own ``traceparent`` replaced, its ``tracestate`` kept)."""
    trace_id, span_id, traceparent = new_context()
    transport, era = UPSTREAMS[upstream]
    called = f"{upstream}__echo"
    async with mcp_session(traced.url, mode=mode) as session:
        result = await session.client.call_tool(
            called, {"text": "hi"}, meta={"traceparent": traceparent, "tracestate": "client=1"}
        )
        client_version = session.protocol_version
        minted = set(session.session_ids_minted)
    assert not result.is_error, text_of(result)
    seen = seen_by_upstream(text_of(result))
    spans = await receiver.trace(
        trace_id,
        {(SERVICE, f"tools/call {called}"), (SERVICE, "tools/call echo"), (UPSTREAM_SERVICE, "tools/call echo")},
    )
    chain = check_joined(spans, trace_id, span_id, called, upstream)
    server, client = chain["server"], chain["client"]

    assert seen["meta"] == {"traceparent": client.traceparent_of, "tracestate": "client=1"}, seen
    if transport != "stdio":  # Streamable HTTP's POST and legacy SSE's carry the headers too
        assert seen["http"] == {"traceparent": client.traceparent_of, "tracestate": "client=1"}, seen
    assert seen["trace_id"] == trace_id

    a = server.attributes
    assert a.get("mcp.method.name") == "tools/call", a
    assert a.get("gen_ai.tool.name") == called and a.get("gen_ai.operation.name") == "execute_tool", a
    assert a.get("network.transport") == "tcp", a
    assert a.get("mcp.protocol.version") == client_version, a
    assert "jsonrpc.request.id" in a, a
    if mode == "legacy":
        assert a.get("mcp.session.id") in minted, (a, minted)
    else:
        assert "mcp.session.id" not in a, "a 2026-07-28 request has no session"
    c = client.attributes
    assert c.get("mcp.method.name") == "tools/call" and c.get("gen_ai.tool.name") == "echo", c
    assert c.get("yrden.server") == upstream and c.get("yrden.transport") == transport, c
    assert c.get("mcp.protocol.version") == era and c.get("yrden.outcome") == "ok", c
    assert server.resource.get("service.name") == SERVICE
    assert not receiver.errors, receiver.errors


@pytest.mark.skipif(not VENV_1X.exists(), reason="make test installs .venv-1x (requirements-1x.txt)")
@pytest.mark.parametrize("upstream", ["sh", "hm"])
async def test_an_sdk_1x_host_joins_the_trace(traced, receiver, upstream):
    """The SDK 1.x, a handshake-era host that knows no tracing, sends ``_meta.traceparent`` as it is given."""
    trace_id, span_id, traceparent = new_context()
    called = f"{upstream}__echo"
    proc = await anyio.run_process(
        [str(VENV_1X), str(CLIENT_1X), traced.url, called, traceparent], check=False, env=clean_env()
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    said = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    assert said["version"] == LEGACY_VERSION and said["session"], said
    spans = await receiver.trace(trace_id, {(SERVICE, f"tools/call {called}"), (UPSTREAM_SERVICE, "tools/call echo")})
    chain = check_joined(spans, trace_id, span_id, called, upstream)
    assert chain["server"].attributes.get("mcp.session.id") == said["session"], chain["server"].attributes
    assert seen_by_upstream(said["text"])["meta"]["traceparent"] == chain["client"].traceparent_of


@pytest.mark.parametrize("era", ["handshake", "modern"])
async def test_a_traceparent_header_starts_the_trace_when_meta_has_none(traced, receiver, era):
    """A client that sends the W3C headers on its HTTP request and nothing in ``_meta``."""
    trace_id, span_id, traceparent = new_context()
    trace_headers = {"traceparent": traceparent, "tracestate": "hdr=2"}
    result = await raw_call(traced, era, "hh__echo", {"text": "hi"}, headers=trace_headers)
    seen = seen_by_upstream(result["content"][0]["text"])
    spans = await receiver.trace(trace_id, {(SERVICE, "tools/call hh__echo"), (UPSTREAM_SERVICE, "tools/call echo")})
    chain = check_joined(spans, trace_id, span_id, "hh__echo", "hh")
    expected = {"traceparent": chain["client"].traceparent_of, "tracestate": "hdr=2"}
    assert seen["meta"] == expected and seen["http"] == expected, seen


async def test_meta_wins_over_the_header(traced, receiver):
    """Both sent: ``_meta`` is per message, the header per HTTP request; the message's own context is taken."""
    header_trace, _, header_parent = new_context()
    trace_id, span_id, traceparent = new_context()
    await raw_call(
        traced,
        "handshake",
        "sh__echo",
        {"text": "hi"},
        headers={"traceparent": header_parent},
        meta={"traceparent": traceparent},
    )
    spans = await receiver.trace(trace_id, {(SERVICE, "tools/call sh__echo"), (UPSTREAM_SERVICE, "tools/call echo")})
    check_joined(spans, trace_id, span_id, "sh__echo", "sh")
    assert receiver.in_trace(header_trace) == [], "the header's trace got spans too"


def echo_call(id: int, upstream: str, meta: dict[str, str] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": f"{upstream}__echo", "arguments": {"text": str(id)}}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}


INITIALIZE_2025_06 = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


async def test_a_batch_member_without_meta_takes_the_posts_headers(traced, receiver):
    """A 2025-03-26 batch POSTed with the W3C headers: the member that carries no context of its own joins the
    headers' trace; the member with ``_meta.traceparent`` keeps its own (``_meta`` is per message)."""
    header_trace, header_span, header_parent = new_context()
    meta_trace, meta_span, meta_parent = new_context()
    async with raw_mcp(traced.url) as raw:
        session = await raw.initialize(protocol_version="2025-03-26")
        answer = await session.post(
            [echo_call(1, "hh"), echo_call(2, "hh", {"traceparent": meta_parent})],
            headers={"traceparent": header_parent, "tracestate": "batch=1"},
        )
    assert answer.status_code == 200, answer.text
    results = {a["id"]: a["result"] for a in answer.json()}
    names = {(SERVICE, "tools/call hh__echo"), (UPSTREAM_SERVICE, "tools/call echo")}
    chain = check_joined(await receiver.trace(header_trace, names), header_trace, header_span, "hh__echo", "hh")
    expected = {"traceparent": chain["client"].traceparent_of, "tracestate": "batch=1"}
    seen = seen_by_upstream(results[1]["content"][0]["text"])
    assert seen["meta"] == expected and seen["http"] == expected, seen
    own = check_joined(await receiver.trace(meta_trace, names), meta_trace, meta_span, "hh__echo", "hh")
    assert seen_by_upstream(results[2]["content"][0]["text"])["meta"]["traceparent"] == own["client"].traceparent_of


async def test_a_legacy_sse_post_carries_its_headers_trace_context(traced, receiver):
    """A 2024-11-05 host over ``GET /sse``: a message POSTed with the W3C headers and no ``_meta`` context joins
    the headers' trace."""
    trace_id, span_id, traceparent = new_context()

    def converse() -> dict[str, Any]:
        json_type = {"Content-Type": "application/json"}
        with httpx2.Client(timeout=30) as http:
            with http.stream("GET", f"{traced.base}/sse", headers={"Accept": "text/event-stream"}) as stream:
                lines = stream.iter_lines()
                assert next(lines) == "event: endpoint"
                messages = f"{traced.base}{next(lines).removeprefix('data: ')}"

                def answer(id: int) -> dict[str, Any]:
                    for line in lines:
                        if line.startswith("data: {") and json.loads(line.removeprefix("data: ")).get("id") == id:
                            return json.loads(line.removeprefix("data: "))
                    raise AssertionError(f"the stream ended before the answer to {id}")

                params = {**INITIALIZE_2025_06["params"], "protocolVersion": "2024-11-05"}
                initialize = {**INITIALIZE_2025_06, "params": params}
                assert http.post(messages, json=initialize, headers=json_type).status_code == 202
                assert "result" in answer(0)
                assert http.post(messages, json=INITIALIZED, headers=json_type).status_code == 202
                headers = {**json_type, "traceparent": traceparent, "tracestate": "sse=1"}
                assert http.post(messages, json=echo_call(1, "sh"), headers=headers).status_code == 202
                return answer(1)

    result = (await anyio.to_thread.run_sync(converse))["result"]
    spans = await receiver.trace(trace_id, {(SERVICE, "tools/call sh__echo"), (UPSTREAM_SERVICE, "tools/call echo")})
    chain = check_joined(spans, trace_id, span_id, "sh__echo", "sh")
    seen = seen_by_upstream(result["content"][0]["text"])
    assert seen["meta"] == {"traceparent": chain["client"].traceparent_of, "tracestate": "sse=1"}, seen


async def test_a_websocket_upgrades_headers_give_its_messages_their_trace_context(traced, receiver):
    """``GET /ws`` upgraded with the W3C headers: a message on the socket without ``_meta`` context joins the
    upgrade's trace; one with its own ``_meta.traceparent`` keeps its own."""
    header_trace, header_span, header_parent = new_context()
    meta_trace, meta_span, meta_parent = new_context()

    def converse() -> dict[int, dict[str, Any]]:
        url = traced.base.replace("http://", "ws://") + "/ws"
        headers = [f"traceparent: {header_parent}", "tracestate: ws=1"]
        ws = websocket.create_connection(url, subprotocols=["mcp"], timeout=30, header=headers)
        try:

            def answers(*ids: int) -> dict[int, dict[str, Any]]:
                got: dict[int, dict[str, Any]] = {}
                while set(got) != set(ids):
                    message = json.loads(ws.recv())
                    if message.get("id") in ids:
                        got[message["id"]] = message["result"]
                return got

            ws.send(json.dumps(INITIALIZE_2025_06))
            answers(0)
            ws.send(json.dumps(INITIALIZED))
            ws.send(json.dumps(echo_call(1, "sh")))
            ws.send(json.dumps(echo_call(2, "sh", {"traceparent": meta_parent})))
            return answers(1, 2)
        finally:
            ws.close()

    results = await anyio.to_thread.run_sync(converse)
    names = {(SERVICE, "tools/call sh__echo"), (UPSTREAM_SERVICE, "tools/call echo")}
    chain = check_joined(await receiver.trace(header_trace, names), header_trace, header_span, "sh__echo", "sh")
    seen = seen_by_upstream(results[1]["content"][0]["text"])
    assert seen["meta"] == {"traceparent": chain["client"].traceparent_of, "tracestate": "ws=1"}, seen
    own = check_joined(await receiver.trace(meta_trace, names), meta_trace, meta_span, "sh__echo", "sh")
    assert seen_by_upstream(results[2]["content"][0]["text"])["meta"]["traceparent"] == own["client"].traceparent_of


@pytest.mark.parametrize(
    "malformed",
    [
        "00-not-hex-at-all-01",
        "00-00000000000000000000000000000000-b7ad6b7169203331-01",  # all-zero trace id
        "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",  # all-zero span id
        "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  # version ff is invalid
        "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01",  # upper case
    ],
)
async def test_a_malformed_traceparent_starts_a_new_trace_and_the_call_succeeds(traced, receiver, malformed):
    request_id = f"malformed-{secrets.token_hex(4)}"
    result = await raw_call(
        traced, "handshake", "sh__echo", {"text": "hi"}, meta={"traceparent": malformed}, id=request_id
    )
    assert result["content"][0]["text"], result
    (server,) = await receiver.wait_for(
        lambda s: s.service == SERVICE and s.kind == "SERVER" and s.attributes.get("jsonrpc.request.id") == request_id,
        what="the request's SERVER span",
    )
    assert server.parent_span_id == "", f"a malformed traceparent became a parent: {server}"
    assert server.trace_id not in malformed.lower()
    seen = seen_by_upstream(result["content"][0]["text"])
    assert seen["meta"]["traceparent"] != malformed and seen["trace_id"] == server.trace_id, seen


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_yrden_stdio_traces_its_requests_as_pipe(yrden, receiver, tmp_path, mode):
    """``yrden stdio``: the host's ``_meta`` context is followed the same way; the transport is ``pipe``."""
    config_file = tmp_path / "yrden.json"
    config_file.write_text(
        json.dumps(
            {"telemetry": telemetry(receiver.url), "mcpServers": {"sh": traced_entry(receiver.url, LEGACY_VERSION)}}
        )
    )
    params = StdioServerParameters(command=str(yrden), args=["stdio", "--config", str(config_file)], env=clean_env())
    trace_id, span_id, traceparent = new_context()
    with (tmp_path / "stderr.log").open("w") as stderr, anyio.fail_after(60):
        async with Client(stdio_client(params, errlog=stderr), mode=mode, cache=None) as client:
            while "sh__echo" not in {tool.name for tool in (await client.list_tools()).tools}:
                await anyio.sleep(0.2)  # the upstream connects after the gateway answers: a lasting condition
            await client.call_tool("sh__echo", {"text": "x"}, meta={"traceparent": traceparent})
            # Waited for while the gateway runs: its batch timer sends them (the flush at exit is tested apart).
            spans = await receiver.trace(
                trace_id, {(SERVICE, "tools/call sh__echo"), (UPSTREAM_SERVICE, "tools/call echo")}
            )
    chain = check_joined(spans, trace_id, span_id, "sh__echo", "sh")
    assert chain["server"].attributes.get("network.transport") == "pipe", chain["server"].attributes


async def test_a_failed_call_is_an_error_span_with_its_code(traced, receiver):
    """An unknown tool: the request span has status ERROR and ``error.type`` the JSON-RPC code."""
    trace_id, span_id, traceparent = new_context()
    async with mcp_session(traced.url, mode="legacy") as session:
        with pytest.raises(MCPError) as failed:
            await session.client.call_tool("sh__nothing_here", {}, meta={"traceparent": traceparent})
    (server,) = await receiver.wait_for(
        lambda s: s.trace_id == trace_id and s.service == SERVICE and s.kind == "SERVER",
        what="the failed request's span",
    )
    assert server.parent_span_id == span_id
    assert server.status == "ERROR", server
    assert server.attributes.get("error.type") == str(failed.value.error.code), server.attributes


@pytest.mark.parametrize("upstream", list(UPSTREAMS))
async def test_the_gateways_own_requests_are_spans_of_their_own(traced, receiver, upstream):
    """The handshake (``initialize``, or ``server/discover`` to a 2026-07-28 server) and the list reads at
    connect: CLIENT spans, each the root of a trace of its own, attributed as a call's upstream span; the
    upstream's span of the ``tools/list`` joins it (the gateway sent its context)."""
    transport, era = UPSTREAMS[upstream]
    handshake = "initialize" if era == LEGACY_VERSION else "server/discover"

    def ours(name: str):
        return lambda s: s.service == SERVICE and s.name == name and s.attributes.get("yrden.server") == upstream

    for name in (handshake, "tools/list"):
        span = (await receiver.wait_for(ours(name), what=f"{upstream}'s {name} span"))[0]
        assert span.kind == "CLIENT" and span.parent_span_id == "", span
        a = span.attributes
        assert a.get("mcp.method.name") == name and a.get("yrden.transport") == transport, a
        assert a.get("yrden.outcome") == "ok" and span.status != "ERROR", span
    listed = (await receiver.wait_for(ours("tools/list"), what="the tools/list span"))[0]
    assert listed.attributes.get("mcp.protocol.version") == era, listed.attributes
    spans = await receiver.trace(listed.trace_id, {(UPSTREAM_SERVICE, "tools/list")})
    up = one(spans, "the upstream's span of the list", service=UPSTREAM_SERVICE, name="tools/list")
    assert up.parent_span_id == listed.span_id, "the upstream's span is not the child of the gateway's"


WS_SERVER = INTEROP_DIR / "servers" / "websocket_server.py"
WS_UPSTREAM_SERVICE = "traced-ws-upstream"


@pytest.mark.skipif(not VENV_1X.exists(), reason="make test installs .venv-1x (requirements-1x.txt)")
async def test_one_trace_runs_over_websockets_from_client_to_upstream(yrden, receiver, tmp_path):
    """A client on the gateway's ``/ws`` sends ``_meta.traceparent``; the call goes to a ``"type": "websocket"``
    upstream (the SDK 1.x's server, whose span is parented on the ``_meta`` it receives): one trace, client →
    gateway SERVER → route → gateway CLIENT → upstream SERVER."""
    trace_id, span_id, traceparent = new_context()
    port = free_port()
    with open(tmp_path / "ws-server.log", "ab") as log:
        server = subprocess.Popen(
            [str(VENV_1X), str(WS_SERVER), "--port", str(port), "--otlp", receiver.url],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=clean_env(),
        )
    try:
        wait_until(lambda: listening(port), 20, "the WebSocket server listening")
        servers = {"ws": {"url": f"ws://127.0.0.1:{port}/ws", "type": "websocket"}}
        gw = start_gateway(yrden, {"telemetry": telemetry(receiver.url), "mcpServers": servers}, tmp_path / "gw")
        try:

            def converse() -> dict[str, Any]:
                ws = websocket.create_connection(gw.base.replace("http://", "ws://") + "/ws", subprotocols=["mcp"])
                ws.settimeout(30)
                try:

                    def answer(id: int) -> dict[str, Any]:
                        while True:
                            message = json.loads(ws.recv())
                            if message.get("id") == id:
                                return message["result"]

                    ws.send(json.dumps(INITIALIZE_2025_06))
                    answer(0)
                    ws.send(json.dumps(INITIALIZED))
                    ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
                    assert "ws__traced_echo" in {t["name"] for t in answer(1)["tools"]}, "the upstream's tools"
                    call = {
                        "name": "ws__traced_echo",
                        "arguments": {"text": "x"},
                        "_meta": {"traceparent": traceparent},
                    }
                    ws.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}))
                    return answer(2)
                finally:
                    ws.close()

            result = await anyio.to_thread.run_sync(converse)
            spans = await receiver.trace(
                trace_id, {(SERVICE, "tools/call ws__traced_echo"), (WS_UPSTREAM_SERVICE, "tools/call traced_echo")}
            )
        finally:
            gw.stop()
    finally:
        server.kill()
        server.wait(timeout=10)
    ours = gateway_spans(spans)
    request = one(ours, "the gateway's request span", kind="SERVER")
    route = one(ours, "the routing decision", name="route")
    client = one(ours, "the gateway's upstream span", kind="CLIENT")
    up = one(spans, "the upstream's span", service=WS_UPSTREAM_SERVICE)
    assert request.parent_span_id == span_id, "the gateway's SERVER span is not the child of the client's span"
    assert route.parent_span_id == request.span_id and client.parent_span_id == route.span_id
    assert up.parent_span_id == client.span_id, "the upstream's span is not the child of the gateway's CLIENT span"
    assert client.attributes.get("yrden.transport") == "websocket", client.attributes
    assert client.attributes.get("yrden.outcome") == "ok", client.attributes
    seen = json.loads(result["content"][0]["text"])
    assert seen["meta"]["traceparent"] == client.traceparent_of, seen


# ---------------------------------------------------------------------------
# The parked call: a 2026-07-28 client of a handshake-era upstream that asks


async def test_a_parked_call_and_its_retry_are_one_trace(traced, receiver):
    """The first request parks the upstream call behind ``input_required``; the retry (sent under a context of
    its own, as a client's new attempt would be) continues the first request's trace, and links to its own."""
    trace_id, span_id, traceparent = new_context()
    retry_trace, retry_span, retry_parent = new_context()
    call = {"name": "sh__ask_name", "arguments": {}}
    sent = {"MCP-Protocol-Version": MODERN_VERSION, "Mcp-Method": "tools/call", "Mcp-Name": "sh__ask_name"}
    async with raw_mcp(traced.url) as raw:
        first_body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {**call, "_meta": {**ENVELOPE, "traceparent": traceparent}},
        }
        first = answer_to(await raw.post(first_body, headers=sent), 1)["result"]
        assert first["resultType"] == "input_required", first
        (key,) = first["inputRequests"]
        retry = {
            **call,
            "requestState": first["requestState"],
            "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
            "_meta": {**ENVELOPE, "traceparent": retry_parent},
        }
        done = answer_to(
            await raw.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry}, headers=sent), 2
        )
    assert done["result"]["content"][0]["text"] == "Hello, Ada!", done

    requests = await receiver.wait_for(
        lambda s: s.trace_id == trace_id and s.service == SERVICE and s.kind == "SERVER",
        count=2,
        what="the first request's and the retry's SERVER spans",
    )
    spans = await receiver.trace(
        trace_id, {(SERVICE, "tools/call ask_name"), (UPSTREAM_SERVICE, "tools/call ask_name")}
    )
    first_span = one(requests, "the first request", parent_span_id=span_id)
    (retry_request,) = [s for s in requests if s is not first_span]
    ours = {s.span_id for s in gateway_spans(spans)}
    assert retry_request.parent_span_id in ours, "the retry's span is not a child of the parked call's trace"
    assert (retry_trace, retry_span) in retry_request.links, (
        f"no link to the retry's own context: {retry_request.links}"
    )
    # One upstream request (the retry's answers go into it): one CLIENT span, under the first request's.
    client = one(gateway_spans(spans), "the one upstream request", kind="CLIENT")
    up = one(spans, "the upstream's span", service=UPSTREAM_SERVICE, kind="SERVER")
    assert up.parent_span_id == client.span_id, "the upstream's span is not the child of the gateway's CLIENT span"
    by_id = {s.span_id: s for s in gateway_spans(spans)}
    assert ancestors(client, by_id)[-1] is first_span, "the upstream request is not under the first request's span"
    assert client.attributes.get("yrden.outcome") == "ok", client.attributes
    assert receiver.in_trace(retry_trace) == [], "the retry started a trace of its own"


# ---------------------------------------------------------------------------
# Sampling


async def test_unsampled_calls_export_nothing_but_still_propagate(yrden, receiver, tmp_path):
    """``sampleRatio`` 0: a call without a context and one under an unsampled parent record no span, yet the
    upstream is sent a context (flags 00) of the same trace; a sampled parent is still followed."""
    gw = start_gateway(
        yrden,
        {
            "telemetry": telemetry(receiver.url, sampleRatio=0),
            "mcpServers": {"sh": traced_entry(receiver.url, LEGACY_VERSION)},
        },
        tmp_path / "gateway",
    )
    try:
        async with mcp_session(gw.url, mode="legacy") as session:
            fresh = seen_by_upstream(text_of(await session.client.call_tool("sh__echo", {"text": "a"})))
            unsampled_trace, unsampled_span, unsampled = new_context(sampled=False)
            under = seen_by_upstream(
                text_of(await session.client.call_tool("sh__echo", {"text": "b"}, meta={"traceparent": unsampled}))
            )
            sampled_trace, sampled_span, sampled = new_context()
            await session.client.call_tool("sh__echo", {"text": "c"}, meta={"traceparent": sampled})
        # The sampled call ended last: once its spans are here, any of the others' would be too.
        spans = await receiver.trace(
            sampled_trace, {(SERVICE, "tools/call sh__echo"), (UPSTREAM_SERVICE, "tools/call echo")}
        )
    finally:
        gw.stop()

    fresh_parent = TRACEPARENT.match((fresh["meta"] or {}).get("traceparent", ""))
    assert fresh_parent and fresh_parent.group(3) == "00", f"no unsampled context sent upstream: {fresh}"
    under_parent = TRACEPARENT.match((under["meta"] or {}).get("traceparent", ""))
    assert under_parent, under
    assert under_parent.group(1) == unsampled_trace and under_parent.group(3) == "00", under
    assert under_parent.group(2) != unsampled_span, "the client's own traceparent was forwarded as is"

    check_joined(spans, sampled_trace, sampled_span, "sh__echo", "sh")
    assert receiver.in_trace(unsampled_trace) == [], "an unsampled parent's call was recorded"
    assert receiver.in_trace(fresh_parent.group(1)) == [], "a new trace was recorded at sampleRatio 0"


# ---------------------------------------------------------------------------
# The collector: down, hung, its headers


@pytest.mark.parametrize("collector", ["refusing", "hung"])
async def test_a_dead_collector_costs_calls_nothing_and_its_spans_are_counted_dropped(yrden, tmp_path, collector):
    with OtlpReceiver(status=503) as refusing, black_hole() as hung:
        endpoint = refusing.url if collector == "refusing" else hung
        gw = start_gateway(
            yrden,
            {"telemetry": telemetry(endpoint), "mcpServers": {"sh": traced_entry(None, LEGACY_VERSION)}},
            tmp_path / "gateway",
        )
        try:
            durations = []
            async with mcp_session(gw.url, mode="auto") as session:
                await session.client.call_tool("sh__echo", {"text": "warm"})
                for i in range(40):
                    started = time.monotonic()
                    await session.client.call_tool("sh__echo", {"text": str(i)})
                    durations.append(time.monotonic() - started)
            assert max(durations) < 2.0, f"a call waited on the collector: {max(durations):.2f}s"
            assert statistics.median(durations) < 0.5, f"median call {statistics.median(durations):.3f}s"

            async def dropped() -> str | None:
                async with httpx2.AsyncClient(timeout=10) as http:
                    text = (await http.get(f"{gw.base}/metrics")).text
                value = metric(text, "yrden_telemetry_spans_dropped_total", reason="export_failed")
                return text if value and value > 0 else None

            # The hung collector fails its export at the 10 s deadline.
            text = await await_until(dropped, 30, interval=0.25, what="spans counted dropped as export_failed")
            assert not metric(text, "yrden_telemetry_spans_exported_total"), (
                "spans counted exported to a dead collector"
            )
        finally:
            gw.stop()
        assert collector == "hung" or refusing.exports, "the refusing collector was never tried"


async def test_spans_past_the_queue_bound_are_dropped_and_counted(yrden, tmp_path):
    """A hung collector holds the one export in flight for its 10 s deadline; the spans of 1,200 calls made
    meanwhile (two or three each) overflow the queue of 2,048: the rest are dropped and counted, the calls
    unharmed."""
    with black_hole() as hung:
        config = {
            "telemetry": telemetry(hung),
            "mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}},
        }
        gw = start_gateway(yrden, config, tmp_path / "gateway")
        try:
            failures: list[str] = []
            async with raw_mcp(gw.url) as raw:

                async def caller(first: int) -> None:
                    for i in range(first, BURST, 16):
                        body = {
                            "jsonrpc": "2.0",
                            "id": i,
                            "method": "tools/call",
                            "params": {"name": "demo__echo", "arguments": {"message": "x"}, "_meta": ENVELOPE},
                        }
                        sent = {
                            "MCP-Protocol-Version": MODERN_VERSION,
                            "Mcp-Method": "tools/call",
                            "Mcp-Name": "demo__echo",
                        }
                        answer = answer_to(await raw.post(body, headers=sent), i)
                        if "result" not in answer or answer["result"].get("isError"):
                            failures.append(str(answer))

                async with anyio.create_task_group() as tg:
                    for first in range(16):
                        tg.start_soon(caller, first)
            assert not failures, failures[:3]

            async def dropped() -> tuple[float, float] | None:
                async with httpx2.AsyncClient(timeout=10) as http:
                    text = (await http.get(f"{gw.base}/metrics")).text
                full = metric(text, "yrden_telemetry_spans_dropped_total", reason="queue_full") or 0
                failed = metric(text, "yrden_telemetry_spans_dropped_total", reason="export_failed") or 0
                return (full, failed) if full > 0 else None

            full, failed = await await_until(dropped, 10, interval=0.25, what="spans counted dropped as queue_full")
            # Nothing was exported: every span but the 2,048 queued and the 512 in flight was dropped.
            assert full + failed >= 2 * BURST - 2048 - 512, f"{full} + {failed} dropped: the queue outgrew its bound"
        finally:
            gw.stop()


async def test_spans_still_waiting_are_flushed_at_shutdown(yrden, receiver, tmp_path):
    """A call answered just before SIGTERM: its spans reach the collector before the gateway exits, though the
    batch's one-second timer had not fired."""
    gw = start_gateway(
        yrden,
        {
            "telemetry": telemetry(receiver.url, serviceName="flushed"),
            "mcpServers": {"sh": traced_entry(None, LEGACY_VERSION)},
        },
        tmp_path / "gateway",
    )
    trace_id, span_id, traceparent = new_context()
    try:
        async with mcp_session(gw.url, mode="legacy") as session:
            await session.client.call_tool("sh__echo", {"text": "x"}, meta={"traceparent": traceparent})
    finally:
        status = gw.stop()
    assert status == 0, f"exit {status}"
    try:
        (server,) = await receiver.wait_for(
            lambda s: s.trace_id == trace_id and s.service == "flushed" and s.kind == "SERVER",
            timeout=5,
            what="the last call's span, flushed at shutdown",
        )
    except TimeoutError as e:
        raise AssertionError(f"{e}\nthe gateway stopped in {gw.stop_seconds:.2f}s; its log:\n{gw.log_text()[-4000:]}")
    assert server.parent_span_id == span_id


async def test_the_collector_gets_its_headers_which_are_never_shown(yrden, receiver, tmp_path):
    """``telemetry.otlp.headers`` (a secret from the environment) reach the collector on every export, never
    the log (at trace level) nor the admin API's config."""
    secret = f"Bearer otlp-{secrets.token_hex(8)}"
    config = {
        "gateway": {"adminToken": ADMIN_TOKEN},
        "telemetry": {
            "otlp": {
                "endpoint": receiver.url,
                "headers": {"authorization": "${OTLP_TOKEN_UNDER_TEST}", "x-tenant": "t1"},
            },
            "serviceName": "headers-test",
        },
        "mcpServers": {"sh": traced_entry(receiver.url, LEGACY_VERSION)},
    }
    gw = start_gateway(
        yrden, config, tmp_path / "gateway", extra_args=["--log-level", "trace"], env={"OTLP_TOKEN_UNDER_TEST": secret}
    )
    try:
        trace_id, _, traceparent = new_context()
        async with mcp_session(gw.url, mode="legacy") as session:
            await session.client.call_tool("sh__echo", {"text": "x"}, meta={"traceparent": traceparent})
        await receiver.wait_for(
            lambda s: s.trace_id == trace_id and s.service == "headers-test", what="the gateway's spans"
        )
        async with httpx2.AsyncClient(timeout=10, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}) as http:
            shown = [(await http.get(f"{gw.base}/api/v1/{path}")).text for path in ("config", "servers")]
    finally:
        gw.stop()
    ours = [e for e in receiver.exports if e.headers.get("x-tenant") == "t1"]
    assert ours, "no export carried the configured headers"
    assert all(e.headers.get("authorization") == secret for e in ours), "the authorization header was not sent"
    assert all(e.path == "/v1/traces" and e.headers.get("content-type") == "application/x-protobuf" for e in ours)
    assert secret not in gw.log_text() and secret.split()[1] not in gw.log_text(), "the collector's secret was logged"
    for text in shown:
        assert secret.split()[1] not in text, "the admin API showed the collector's secret"


# ---------------------------------------------------------------------------
# Logs, the environment, config changes, a bad config


async def test_json_log_lines_of_a_traced_call_carry_its_trace_and_span(yrden, receiver, tmp_path):
    gw = start_gateway(
        yrden,
        {"telemetry": telemetry(receiver.url), "mcpServers": {"sh": traced_entry(receiver.url, LEGACY_VERSION)}},
        tmp_path / "gateway",
        extra_args=["--log-format", "json", "--log-level", "debug"],
    )
    try:
        trace_id, _, traceparent = new_context()
        async with mcp_session(gw.url, mode="legacy") as session:
            await session.client.call_tool("sh__echo", {"text": "x"}, meta={"traceparent": traceparent})
        spans = await receiver.trace(trace_id, {(SERVICE, "tools/call sh__echo"), (SERVICE, "tools/call echo")})

        def traced_lines() -> list[dict[str, Any]]:
            out = []
            for line in gw.log_text().splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and entry.get("trace_id") == trace_id:
                    out.append(entry)
            return out

        lines = wait_until(traced_lines, 10, "a JSON log line with the call's trace_id")
    finally:
        gw.stop()
    ours = {s.span_id for s in gateway_spans(spans)}
    assert all(entry.get("span_id") in ours for entry in lines), (lines, ours)


async def test_the_standard_environment_variables_configure_tracing(yrden, receiver, tmp_path):
    """No ``telemetry`` in the file: ``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_SERVICE_NAME`` and
    ``OTEL_EXPORTER_OTLP_HEADERS`` (URL-encoded values) are used."""
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        "OTEL_SERVICE_NAME": "from-env",
        "OTEL_EXPORTER_OTLP_HEADERS": "x-env=a%20b,x-other=c",
    }
    gw = start_gateway(
        yrden, {"mcpServers": {"sh": traced_entry(receiver.url, LEGACY_VERSION)}}, tmp_path / "gw", env=env
    )
    try:
        trace_id, span_id, traceparent = new_context()
        async with mcp_session(gw.url, mode="auto") as session:
            await session.client.call_tool("sh__echo", {"text": "x"}, meta={"traceparent": traceparent})
        (server,) = await receiver.wait_for(
            lambda s: s.trace_id == trace_id and s.service == "from-env" and s.kind == "SERVER", what="the SERVER span"
        )
    finally:
        gw.stop()
    assert server.parent_span_id == span_id
    assert any(e.headers.get("x-env") == "a b" and e.headers.get("x-other") == "c" for e in receiver.exports)


async def test_sdk_disabled_leaves_meta_untouched(yrden, receiver, tmp_path):
    """``OTEL_SDK_DISABLED=true`` turns tracing off whatever else is set: the client's ``_meta`` reaches the
    upstream as sent."""
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_SDK_DISABLED": "true"}
    config = {"telemetry": telemetry(receiver.url), "mcpServers": {"sh": traced_entry(receiver.url, LEGACY_VERSION)}}
    gw = start_gateway(yrden, config, tmp_path / "gw", env=env)
    try:
        _, _, traceparent = new_context()
        async with mcp_session(gw.url, mode="legacy") as session:
            result = await session.client.call_tool(
                "sh__echo", {"text": "x"}, meta={"traceparent": traceparent, "tracestate": "k=v"}
            )
    finally:
        gw.stop()
    assert seen_by_upstream(text_of(result))["meta"] == {"traceparent": traceparent, "tracestate": "k=v"}


async def test_a_config_change_is_a_span(traced, receiver):
    server_id = f"added{secrets.token_hex(3)}"
    body = {"id": server_id, "config": {**traced_entry(receiver.url, LEGACY_VERSION), "disabled": True}}
    async with httpx2.AsyncClient(timeout=30, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}) as http:
        added = await http.post(f"{traced.base}/api/v1/servers", json=body)
        assert added.status_code in (200, 201), added.text
        removed = await http.delete(f"{traced.base}/api/v1/servers/{server_id}")
        assert removed.status_code in (200, 204), removed.text
    for change in ("add", "remove"):
        (span,) = await receiver.wait_for(
            lambda s, change=change: (
                s.service == SERVICE
                and s.name == "config.change"
                and s.attributes.get("yrden.change") == change
                and s.attributes.get("yrden.server") == server_id
            ),
            what=f"the {change} span",
        )
        assert span.kind == "INTERNAL", span


async def test_a_servers_oauth_refresh_is_a_span(rig: Rig, oauth_server, receiver):
    """A server's access token expires; the next call makes the gateway refresh it: an ``oauth.refresh`` span
    naming the server. Tracing comes from the standard variables here (the rig writes the config)."""
    peer: OAuthServer = oauth_server()
    gw = rig.start({"tasks": peer}, env={"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_SERVICE_NAME": "oauth-rig"})
    await rig.sign_in(gw, "tasks")
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"tasks__whoami"})
        first = await whoami(session, "tasks")
        assert peer.expire_access_tokens() >= 1
        assert await whoami(session, "tasks") == first
    assert peer.stats()["token_requests"].get("refresh_token", {}).get("ok", 0) >= 1, "no refresh happened"
    (refresh,) = await receiver.wait_for(
        lambda s: s.service == "oauth-rig" and s.name == "oauth.refresh", what="the oauth.refresh span"
    )
    assert refresh.kind == "INTERNAL", refresh
    assert refresh.attributes.get("yrden.server") == "tasks", refresh.attributes
    assert refresh.attributes.get("yrden.outcome") == "ok" and refresh.status != "ERROR", refresh
    rig.assert_no_leaks()


async def test_a_users_oauth_refresh_is_a_span_of_their_call(oauth_server, gateway, receiver, tmp_path):
    """A ``perUser`` server refuses a user's access token; the gateway refreshes it inside the call that was
    refused: an ``oauth.refresh`` span naming the server, under that call's request span."""
    peer: OAuthServer = oauth_server()
    config = {
        "gateway": {"clientTokens": [ALICE, BOB]},
        "telemetry": telemetry(receiver.url, serviceName="oauth-user"),
        "mcpServers": {"tasks": {"url": peer.url, "auth": {"type": "oauth", "perUser": True}}},
    }
    gw = gateway(config, extra_args=("--data-dir", str(tmp_path / "data")), env={"YRDEN_ADMIN_TOKEN": PER_USER_ADMIN})
    await operator_signs_in(gw, "tasks")
    alice_client = await signed_in(gw, ALICE)
    assert peer.revoke_client_tokens(alice_client) >= 1
    assert client_id_of(await whoami_as(gw, ALICE)) == alice_client
    assert peer.stats()["refreshes_by_client"] == {alice_client: 1}
    (refresh,) = await receiver.wait_for(
        lambda s: s.service == "oauth-user" and s.name == "oauth.refresh", what="the oauth.refresh span"
    )
    assert refresh.kind == "INTERNAL", refresh
    assert refresh.attributes.get("yrden.server") == "tasks", refresh.attributes
    assert refresh.attributes.get("yrden.outcome") == "ok" and refresh.status != "ERROR", refresh
    (call,) = await receiver.wait_for(
        lambda s: s.trace_id == refresh.trace_id and s.service == "oauth-user" and s.kind == "SERVER",
        what="the refused call's request span",
    )
    by_id = {s.span_id: s for s in receiver.in_trace(refresh.trace_id)}
    assert call in ancestors(refresh, by_id), "the refresh is not inside the call that needed it"
    assert call.name == "tools/call tasks__whoami", call


async def test_a_servers_own_requests_at_an_added_connection_are_children_of_the_change(traced, receiver):
    """An operator adds a server: its handshake and list reads are children of the ``config.change`` span."""
    server_id = f"joined{secrets.token_hex(3)}"
    body = {"id": server_id, "config": traced_entry(receiver.url, LEGACY_VERSION)}
    async with httpx2.AsyncClient(timeout=30, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}) as http:
        added = await http.post(f"{traced.base}/api/v1/servers", json=body)
        assert added.status_code in (200, 201), added.text
        try:
            (change,) = await receiver.wait_for(
                lambda s: s.name == "config.change" and s.attributes.get("yrden.server") == server_id,
                what="the add span",
            )
            for name in ("initialize", "tools/list"):
                (span,) = await receiver.wait_for(
                    lambda s, name=name: s.name == name and s.attributes.get("yrden.server") == server_id,
                    what=f"the added server's {name}",
                )
                assert span.trace_id == change.trace_id and span.parent_span_id == change.span_id, (span, change)
        finally:
            await http.delete(f"{traced.base}/api/v1/servers/{server_id}")


BAD_TELEMETRY = {
    "ratio above 1": ({"sampleRatio": 1.5}, "telemetry.sampleRatio"),
    "ratio not a number": ({"sampleRatio": "all"}, "telemetry.sampleRatio"),
    "unknown key": ({"otlp": {"endpont": "http://127.0.0.1:4318"}}, "telemetry.otlp.endpont"),
    "endpoint not a URL": ({"otlp": {"endpoint": "collector:4318"}}, "telemetry.otlp.endpoint"),
    "empty service name": ({"serviceName": ""}, "telemetry.serviceName"),
    "headers not an object": (
        {"otlp": {"endpoint": "http://127.0.0.1:4318", "headers": "a=b"}},
        "telemetry.otlp.headers",
    ),
}


@pytest.mark.parametrize("case", list(BAD_TELEMETRY))
def test_a_bad_telemetry_config_is_refused_naming_the_field(yrden, tmp_path, case):
    section, field = BAD_TELEMETRY[case]
    path = tmp_path / "yrden.json"
    path.write_text(json.dumps({"telemetry": section, "mcpServers": {}}))
    for argv in (["check-config", str(path)], ["serve", "--config", str(path), "--listen", f"127.0.0.1:{free_port()}"]):
        proc = subprocess.run(
            [str(yrden), *argv],
            cwd=tmp_path,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
        said = proc.stdout + proc.stderr
        assert proc.returncode == 2, f"{argv[0]}: exit {proc.returncode}\n{said}"
        assert field in said, f"{argv[0]}: the message does not name {field!r}:\n{said}"


# ---------------------------------------------------------------------------
# Raw requests


async def raw_call(
    gw: Gateway,
    era: str,
    tool: str,
    arguments: dict[str, Any],
    *,
    headers: dict[str, str] | None = None,
    meta: dict[str, Any] | None = None,
    id: Any = 1,
) -> dict[str, Any]:
    """One ``tools/call`` by hand (handshake era: in a session of its own; 2026-07-28: alone), with the
    given HTTP headers and ``_meta``; its result."""
    async with raw_mcp(gw.url) as raw:
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if era == "handshake":
            session = await raw.initialize()
            if meta:
                params["_meta"] = meta
            answer = answer_to(
                await session.post(
                    {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}, headers=headers
                ),
                id,
            )
        else:
            params["_meta"] = {**ENVELOPE, **(meta or {})}
            sent = {
                "MCP-Protocol-Version": MODERN_VERSION,
                "Mcp-Method": "tools/call",
                "Mcp-Name": tool,
                **(headers or {}),
            }
            answer = answer_to(
                await raw.post({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}, headers=sent), id
            )
    assert "result" in answer, answer
    return answer["result"]
