"""An upstream reached over WebSocket (``"type": "websocket"``): the official Python SDK 1.x's ``websocket_server``.

The server (``servers/websocket_server.py``) runs under ``.venv-1x``: the 2.x SDK dropped the WebSocket
transport. Each test drives the gateway with the 2.x SDK client over ``/mcp`` and watches the server's state on
the admin event stream: served, killed and back, frozen (found by the keep-alive, not by a request), flooding.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from harness import MODES, INTEROP_DIR, REPO_ROOT, Gateway, admin_events, clean_env, free_port, mcp_session, text_of

WEBSOCKET_SERVER = INTEROP_DIR / "servers" / "websocket_server.py"
PYTHON_1X = REPO_ROOT / ".venv-1x" / "bin" / "python"
LATENCY_BOUND = 1.0
RSS_GROWTH_BOUND_MB = 64

pytestmark = pytest.mark.skipif(not PYTHON_1X.exists(), reason="needs .venv-1x (make venv-1x)")


@contextmanager
def websocket_upstream(
    log: Path, port: int, env: dict[str, str] | None = None, args: tuple[str, ...] = ()
) -> Iterator[subprocess.Popen]:
    """The SDK's WebSocket server on `port` (with `args`), listening when yielded; killed at the end."""
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [str(PYTHON_1X), str(WEBSOCKET_SERVER), "--port", str(port), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=clean_env(env),
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, log.read_text(errors="replace")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the WebSocket server did not listen"
                time.sleep(0.05)
        yield proc
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)
            proc.kill()
        proc.wait(timeout=10)


def ws_entry(port: int, **entry: Any) -> dict[str, Any]:
    return {"type": "websocket", "url": f"ws://127.0.0.1:{port}/ws", **entry}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_a_websocket_upstream_serves_its_tools_through_the_gateway(gateway, tmp_path: Path, mode: str) -> None:
    """Both eras downstream (`legacy`: initialize; `auto`: the SDK finds the gateway's 2026-07-28), while the
    SDK 1.x server speaks the handshake era only."""
    port = free_port()
    with websocket_upstream(tmp_path / "ws.log", port):
        gw: Gateway = gateway({"mcpServers": {"ws": ws_entry(port)}})
        async with admin_events(gw) as events:
            server = await events.reach_state("ws", "connected", 30)
        assert server["transport"] == "websocket" and server["era"] == "handshake"
        async with mcp_session(gw.url, mode=mode) as session:
            tools = {tool.name for tool in (await session.client.list_tools()).tools}
            assert {"ws__greet", "ws__pid", "ws__flood"} <= tools
            greeting = await session.client.call_tool("ws__greet", {"name": "Ada"})
        assert text_of(greeting) == "Hello over WebSocket, Ada!"


@pytest.mark.anyio
async def test_a_killed_websocket_upstream_is_reconnected_when_it_comes_back(gateway, tmp_path: Path) -> None:
    port = free_port()
    reconnect = {"initialDelay": 0.2, "maxDelay": 0.5}
    with websocket_upstream(tmp_path / "ws.log", port) as first:
        gw: Gateway = gateway({"mcpServers": {"ws": ws_entry(port, reconnect=reconnect)}})
        async with admin_events(gw) as events, mcp_session(gw.url) as session:
            await events.reach_state("ws", "connected", 30)
            before = text_of(await session.client.call_tool("ws__pid", {}))
            mark = events.mark()
            first.kill()
            first.wait(timeout=10)
            left = await events.wait_for(
                lambda name, data: name == "server.state"
                and data["server"]["id"] == "ws"
                and data["server"]["state"] != "connected",
                10,
                after=mark,
                what="ws no longer connected",
            )
            print(f"\nkilled: the gateway saw it as {events.events[left][1]['server']['state']}")
            mark = events.mark()
            with websocket_upstream(tmp_path / "ws2.log", port):
                await events.wait_for_state("ws", "connected", 30, after=mark)
                after = text_of(await session.client.call_tool("ws__pid", {}))
    assert before != after, "the call after the restart reached the old process"


@pytest.mark.anyio
async def test_a_frozen_websocket_upstream_is_found_by_the_keep_alive(gateway, tmp_path: Path) -> None:
    """SIGSTOP: the kernel keeps the TCP connection up, only the pings go unanswered. The gateway must give the
    connection up within its keep-alive (ping every `connect` seconds, dead after twice that), long before any
    request would time out, and reconnect once the server runs again."""
    port = free_port()
    entry = ws_entry(port, timeouts={"connect": 1, "request": 120}, reconnect={"initialDelay": 0.2, "maxDelay": 0.5})
    with websocket_upstream(tmp_path / "ws.log", port) as proc:
        gw: Gateway = gateway({"mcpServers": {"ws": entry}})
        async with admin_events(gw) as events:
            await events.reach_state("ws", "connected", 30)
            mark = events.mark()
            os.kill(proc.pid, signal.SIGSTOP)
            started = time.monotonic()
            left = await events.wait_for(
                lambda name, data: name == "server.state"
                and data["server"]["id"] == "ws"
                and data["server"]["state"] != "connected",
                15,
                after=mark,
                what="ws given up",
            )
            seconds = time.monotonic() - started
            server = events.events[left][1]["server"]
            print(f"\nfrozen: given up after {seconds:.1f} s: {server.get('lastError')}")
            assert "ping" in str(server.get("lastError")), server
            mark = events.mark()
            os.kill(proc.pid, signal.SIGCONT)
            await events.wait_for_state("ws", "connected", 30, after=mark)
        async with mcp_session(gw.url) as session:
            assert text_of(await session.client.call_tool("ws__greet", {"name": "again"})).endswith("again!")


@pytest.mark.anyio
async def test_a_flooding_websocket_upstream_does_not_stall_other_calls(gateway, tmp_path: Path) -> None:
    port = free_port()
    with websocket_upstream(tmp_path / "ws.log", port):
        gw: Gateway = gateway({"mcpServers": {"ws": ws_entry(port)}})
        async with admin_events(gw) as events:
            await events.reach_state("ws", "connected", 30)
        rss_before = rss_mb(gw.pid)
        async with mcp_session(gw.url) as flooding, mcp_session(gw.url) as other:
            async with anyio.create_task_group() as tg:
                flooded: list[str] = []

                async def flood() -> None:
                    flooded.append(text_of(await flooding.client.call_tool("ws__flood", {"count": 20000})))

                tg.start_soon(flood)
                await anyio.sleep(1.0)
                started = time.monotonic()
                greeting = text_of(await other.client.call_tool("ws__greet", {"name": "between"}))
                latency = time.monotonic() - started
        rss_after = rss_mb(gw.pid)
        print(
            f"\nflood of 20,000 log messages: a call meanwhile {latency * 1000:.0f} ms; "
            f"RSS {rss_before:.0f} -> {rss_after:.0f} MB"
        )
        assert flooded == ["sent 20000"]
        assert greeting == "Hello over WebSocket, between!"
        assert latency < LATENCY_BOUND
        assert rss_after - rss_before < RSS_GROWTH_BOUND_MB


@pytest.mark.anyio
async def test_the_configured_headers_go_with_the_upgrade_and_a_refusal_names_its_status(
    gateway, tmp_path: Path
) -> None:
    port = free_port()
    with websocket_upstream(tmp_path / "ws.log", port, env={"WS_SERVER_TOKEN": "ws-secret"}):
        servers = {
            "good": ws_entry(port, headers={"Authorization": "Bearer ${WS_TOKEN}"}),
            "bad": ws_entry(port, headers={"Authorization": "Bearer wrong"}, reconnect="never"),
        }
        gw: Gateway = gateway({"mcpServers": servers}, env={"WS_TOKEN": "ws-secret"})
        async with admin_events(gw) as events:
            await events.reach_state("good", "connected", 30)
            bad = await events.reach_state("bad", "failed", 30)
        async with mcp_session(gw.url) as session:
            greeting = text_of(await session.client.call_tool("good__greet", {"name": "with a token"}))
    assert greeting == "Hello over WebSocket, with a token!"
    assert bad["lastError"]["kind"] == "auth" and bad["lastError"].get("httpStatus") == 403, bad
    assert "ws-secret" not in gw.log_text()
