"""Upstream servers over the deprecated HTTP+SSE transport (MCP 2024-11-05), pinned or found by fallback.

The upstream is ``servers/http_server.py --legacy-sse``: the official Python SDK's own SSE server app, with
``GET /sse`` and ``POST /messages/?session_id=…``. Like the Streamable HTTP tests, it demands the bearer token
the gateway's config builds from ``${TEST_SECRET}``, so every passing call also shows that the configured
headers go with the GET and the POSTs; the token must never reach the gateway's log.
"""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest

from harness import Gateway, admin_events, free_port, mcp_session, text_of, wait_for_server_state
from test_http_upstream import SECRET, HttpUpstream

FALLBACK_LINE = "the server refused Streamable HTTP (HTTP 405); trying the legacy HTTP+SSE transport"
# A killed legacy server is noticed at once: its stream, which carries every answer, ends with it.
LEAVE = 15.0
RETURN = 20.0


class LegacyUpstream(HttpUpstream):
    @property
    def sse_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/sse"


@pytest.fixture
def legacy_upstream(tmp_path: Path) -> Iterator[LegacyUpstream]:
    upstream = LegacyUpstream(port=free_port(), flags=["--legacy-sse"], log_path=tmp_path / "http_server.log")
    upstream.start()
    yield upstream
    upstream.kill()


def remote_config(url: str, transport: str | None) -> dict:
    entry: dict = {"url": url, "headers": {"Authorization": "Bearer ${TEST_SECRET}"}}
    if transport is not None:
        entry["type"] = transport
    return {"mcpServers": {"remote": entry}}


def remote_tools(names: set[str]) -> set[str]:
    return {n for n in names if n.startswith("remote__")}


async def health_of_remote(gw: Gateway) -> dict:
    async with httpx2.AsyncClient(timeout=5.0) as http:
        return (await http.get(f"{gw.base}/healthz")).json()["servers"]["remote"]


async def wait_for_state(gw: Gateway, state: str, timeout: float) -> dict:
    """The remote's view once it is in ``state`` (a state it stays in, or one it reaches after this call)."""
    return await wait_for_server_state(gw, "remote", state, timeout)


async def test_sse_type_lists_and_calls_tools_with_progress_mid_call(legacy_upstream, gateway):
    gw = gateway(remote_config(legacy_upstream.sse_url, "sse"), env={"TEST_SECRET": SECRET})
    async with mcp_session(gw.url, mode="legacy") as session:
        names = await session.wait_for_tools({"remote__greet", "remote__progress", "remote__pid"})
        assert remote_tools(names) == {"remote__greet", "remote__progress", "remote__pid"}
        with anyio.fail_after(20):
            result = await session.client.call_tool("remote__greet", {"name": "Yrden"})
        assert not result.is_error, text_of(result)
        assert text_of(result) == "Hello over HTTP, Yrden!"
        with anyio.fail_after(20):
            pid = await session.client.call_tool("remote__pid", {})
        assert text_of(pid) == str(legacy_upstream.proc.pid)

        arrivals: list[tuple[float, float]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            arrivals.append((anyio.current_time(), progress))

        with anyio.fail_after(30):
            counted = await session.client.call_tool("remote__progress", {"steps": 4}, progress_callback=on_progress)
        finished = anyio.current_time()
        assert not counted.is_error, text_of(counted)
        assert text_of(counted) == "counted to 4"
        assert [p for _, p in arrivals] == [1, 2, 3, 4], arrivals
        # The steps are 0.3 s apart: the first must arrive well before the result, not bunched up with it.
        assert finished - arrivals[0][0] > 0.5, f"progress arrived only with the result: {arrivals}, end {finished}"
    remote = await health_of_remote(gw)
    assert (remote["state"], remote["transport"]) == ("connected", "sse"), remote
    assert "trying the legacy" not in gw.log_text(), "a pinned sse server must not go through detection"
    assert SECRET not in gw.log_text(), "the bearer token leaked into the gateway's log"


async def test_bare_url_at_a_legacy_server_falls_back_and_works(legacy_upstream, gateway):
    gw = gateway(remote_config(legacy_upstream.sse_url, None), env={"TEST_SECRET": SECRET})
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"remote__greet", "remote__pid"})
        with anyio.fail_after(20):
            result = await session.client.call_tool("remote__greet", {"name": "fallback"})
        assert not result.is_error, text_of(result)
        assert text_of(result) == "Hello over HTTP, fallback!"
    health = await health_of_remote(gw)
    assert health["state"] == "connected"
    assert health["transport"] == "sse", "health should show the transport in use, not the one first tried"
    async with httpx2.AsyncClient(timeout=10) as http:
        server = (await http.get(f"{gw.base}/api/v1/servers/remote")).json()
    assert server["transport"] == "sse", "the admin API (and so `servers list`) should show the fallback"
    log = gw.log_text()
    assert FALLBACK_LINE in log, "the gateway's log does not say it fell back to HTTP+SSE"
    assert SECRET not in log, "the bearer token leaked into the gateway's log"


async def test_pinned_http_at_a_legacy_server_fails_without_fallback(legacy_upstream, gateway):
    gw = gateway(remote_config(legacy_upstream.sse_url, "http"), env={"TEST_SECRET": SECRET})
    remote = await wait_for_state(gw, "failed", 20)
    assert "HTTP 405" in remote["lastError"]["message"], remote
    async with mcp_session(gw.url, mode="legacy") as session:
        assert not remote_tools(await session.tool_names())
    log = gw.log_text()
    assert "trying the legacy" not in log, "a pinned http server fell back to HTTP+SSE"
    assert SECRET not in log, "the bearer token leaked into the gateway's log"


async def test_legacy_server_killed_goes_failed_and_returns_when_restarted(legacy_upstream, gateway):
    gw = gateway(remote_config(legacy_upstream.sse_url, "sse"), env={"TEST_SECRET": SECRET})
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"remote__pid"})
        old_pid = legacy_upstream.proc.pid

        # Failed is transient here (the gateway retries): watched on the event stream from before the kill.
        async with admin_events(gw) as events:
            legacy_upstream.kill()
            remote = await events.wait_for_state("remote", "failed", LEAVE)
        assert remote["lastError"]["kind"] == "network", remote
        assert not remote_tools(await session.tool_names())

        legacy_upstream.start()
        await session.wait_for_tools({"remote__greet", "remote__pid"}, timeout=RETURN)
        with anyio.fail_after(20):
            pid = await session.client.call_tool("remote__pid", {})
        assert not pid.is_error, text_of(pid)
        assert text_of(pid) == str(legacy_upstream.proc.pid) != str(old_pid)
    assert SECRET not in gw.log_text(), "the bearer token leaked into the gateway's log"


async def test_wrong_bearer_token_is_refused_and_never_logged(legacy_upstream, gateway):
    wrong = "wrong-token-3b9e"
    gw = gateway(remote_config(legacy_upstream.sse_url, "sse"), env={"TEST_SECRET": wrong})
    remote = await wait_for_state(gw, "failed", 20)
    assert remote["lastError"]["kind"] == "auth", remote
    assert "HTTP 401" in remote["lastError"]["message"], remote
    assert wrong not in gw.log_text(), "the bearer token leaked into the gateway's log"


# ---------------------------------------------------------------------------
# Servers the SDK would never be: a stream that names no endpoint, or names one on another host.


class FakeSSEServer(socketserver.ThreadingTCPServer):
    """Answers any request with an event stream carrying ``events`` and holds it open; records request lines."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, events: bytes):
        super().__init__(("127.0.0.1", 0), FakeSSEHandler)
        self.events = events
        self.request_lines: list[str] = []
        self.stopping = threading.Event()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return self.server_address[1]

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()


class FakeSSEHandler(socketserver.BaseRequestHandler):
    server: FakeSSEServer

    def handle(self) -> None:
        head = b""
        while b"\r\n\r\n" not in head and (chunk := self.request.recv(4096)):
            head += chunk
        self.server.request_lines.append(head.split(b"\r\n", 1)[0].decode(errors="replace"))
        self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + self.server.events)
        self.server.stopping.wait(30)


@pytest.fixture
def fake_sse_servers() -> Iterator[list[FakeSSEServer]]:
    servers: list[FakeSSEServer] = []
    yield servers
    for server in servers:
        server.stop()


async def test_a_stream_that_names_no_endpoint_fails_within_the_connect_timeout(fake_sse_servers, gateway):
    silent = FakeSSEServer(b": nothing to see\n\n")
    fake_sse_servers.append(silent)
    config = remote_config(f"http://127.0.0.1:{silent.port}/sse", "sse")
    config["mcpServers"]["remote"]["timeouts"] = {"connect": 1}
    gw = gateway(config, env={"TEST_SECRET": SECRET})
    remote = await wait_for_state(gw, "failed", 15)
    assert remote["lastError"]["kind"] == "protocol", remote
    assert "no message endpoint" in remote["lastError"]["message"], remote
    assert silent.request_lines[0].startswith("GET /sse "), silent.request_lines


async def test_an_endpoint_on_another_origin_is_refused_and_never_contacted(fake_sse_servers, gateway):
    elsewhere = FakeSSEServer(b"")
    fake_sse_servers.append(elsewhere)
    redirecting = FakeSSEServer(f"event: endpoint\ndata: http://127.0.0.1:{elsewhere.port}/messages\n\n".encode())
    fake_sse_servers.append(redirecting)
    gw = gateway(remote_config(f"http://127.0.0.1:{redirecting.port}/sse", "sse"), env={"TEST_SECRET": SECRET})
    remote = await wait_for_state(gw, "failed", 15)
    assert remote["lastError"]["kind"] == "protocol", remote
    assert "another origin" in remote["lastError"]["message"], remote
    await anyio.sleep(0.5)
    assert elsewhere.request_lines == [], "the gateway sent a request to the other origin"
    assert SECRET not in gw.log_text(), "the bearer token leaked into the gateway's log"
