"""A hostile upstream cannot stall the gateway: floods, a giant schema, a huge list, silence.

The upstream is ``servers/hostile_server.py`` (raw JSON-RPC over stdio), steered through its own tools
called through the gateway. Each test names the bound it checks and prints the figure it measured.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from harness import PYTHON, INTEROP_DIR, Gateway, await_until, clean_env, free_port, mcp_session
from test_metrics import sample

HOSTILE_SERVER = INTEROP_DIR / "servers" / "hostile_server.py"
TOKEN = "adm-hostile-token"
ENV = {"HOSTILE_ADMIN_TOKEN": TOKEN}

# The figures on 0.1.0: DELETE after a 3 s list_changed flood took 110 s; /healthz stalled 7-9 s and
# a tools/call 7 s with a 60,000-property schema. The bounds below are far above a healthy gateway's figure
# (milliseconds) and far below the broken one's, so a loaded 2-core machine cannot make them flaky.
STOP_BOUND = 5.0
LATENCY_BOUND = 1.0
RSS_GROWTH_BOUND_MB = 64
# The 1 s bound is measured with no other test loading the machine (a parallel run put /healthz at 1.1-1.7 s).
pytestmark = pytest.mark.alone


def hostile(*args: str, **entry: Any) -> dict[str, Any]:
    return {"command": PYTHON, "args": [str(HOSTILE_SERVER), *args], **entry}


def config(**servers: dict[str, Any]) -> dict[str, Any]:
    return {"gateway": {"adminToken": "${HOSTILE_ADMIN_TOKEN}"}, "mcpServers": servers}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def timed_get(http: httpx2.AsyncClient, url: str) -> tuple[float, httpx2.Response]:
    started = time.monotonic()
    response = await http.get(url)
    return time.monotonic() - started, response


async def wait_connected(http: httpx2.AsyncClient, gw: Gateway, server: str, timeout: float = 30.0) -> dict:
    async def connected() -> dict | None:
        body = (await http.get(f"{gw.base}/api/v1/servers/{server}")).json()
        return body if body.get("state") == "connected" else None

    return await await_until(connected, timeout, interval=0.2, what=f"{server} connected")


def admin_client() -> httpx2.AsyncClient:
    return httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=180.0), headers={"Authorization": f"Bearer {TOKEN}"})


@dataclass
class FloodRun:
    """What a flood left behind: the gateway's answers during it, the server's own counts, and how its removal went."""

    health: httpx2.Response
    latency: float
    echoed: str
    echo_latency: float
    stats: dict[str, Any]
    rss_before: float
    rss_after: float
    metrics: str
    deleted: httpx2.Response
    delete_seconds: float


async def flood_and_remove(
    gw: Gateway, server: str, flood: dict[str, Any], echo_tool: str, echo_text: str
) -> FloodRun:
    """Starts a 3 s flood on `server`, probes /healthz and `echo_tool` one second in, reads the server's counts
    and the metrics once it is over, then removes the server and times the DELETE."""
    async with admin_client() as http, mcp_session(gw.url) as session:
        await wait_connected(http, gw, server)
        rss_before = rss_mb(gw.pid)
        await session.client.call_tool(f"{server}__flood", {"seconds": 3, **flood})
        await anyio.sleep(1.0)
        latency, health = await timed_get(http, f"{gw.base}/healthz")
        echo_started = time.monotonic()
        echoed = await session.client.call_tool(echo_tool, {"text": echo_text})
        echo_latency = time.monotonic() - echo_started
        await anyio.sleep(2.5)
        stats = json.loads(text_of(await session.client.call_tool(f"{server}__stats", {})))
        rss_after = rss_mb(gw.pid)
        metrics = (await http.get(f"{gw.base}/metrics")).text
        started = time.monotonic()
        deleted = await http.delete(f"{gw.base}/api/v1/servers/{server}")
        delete_seconds = time.monotonic() - started
    return FloodRun(
        health, latency, text_of(echoed), echo_latency, stats, rss_before, rss_after, metrics, deleted, delete_seconds
    )


@pytest.mark.anyio
async def test_a_list_changed_flood_is_coalesced_and_delete_ends_it_at_once(gateway) -> None:
    gw = gateway(config(hostile=hostile(), other=hostile()), env=ENV)
    # While the flood lasts, the gateway still answers, and another server's calls go through.
    run = await flood_and_remove(gw, "hostile", {}, "other__echo", "still here")
    health, latency, echoed, echo_latency = run.health, run.latency, run.echoed, run.echo_latency
    stats, rss_before, rss_after, metrics = run.stats, run.rss_before, run.rss_after, run.metrics
    deleted, delete_seconds = run.deleted, run.delete_seconds
    coalesced = sample(metrics, "yrden_upstream_notifications_shed_total", server="hostile", reason="coalesced")
    print(
        f"\nflood: {coalesced} coalesced by the gateway; {stats['sent']} list_changed sent, {stats['lists'].get('tools/list', 0)} tools/list answered; "
        f"/healthz {latency * 1000:.0f} ms and other__echo {echo_latency * 1000:.0f} ms during the flood; "
        f"DELETE after it {delete_seconds:.2f} s; RSS {rss_before:.0f} -> {rss_after:.0f} MB"
    )
    assert health.status_code == 200
    assert echoed == "still here"
    assert deleted.status_code in (200, 204), deleted.text
    assert delete_seconds < STOP_BOUND, f"DELETE took {delete_seconds:.1f} s after the flood"
    assert latency < LATENCY_BOUND and echo_latency < LATENCY_BOUND
    # Coalesced: far fewer refreshes than notifications (one per burst the gateway could not keep up with).
    assert stats["lists"].get("tools/list", 0) < stats["sent"] / 10
    assert coalesced is not None and coalesced > stats["sent"] / 2, "the metric counts the coalesced notifications"
    assert rss_after - rss_before < RSS_GROWTH_BOUND_MB


@pytest.mark.anyio
async def test_a_giant_schema_does_not_stall_other_requests(gateway) -> None:
    gw = gateway(config(hostile=hostile("--schema-properties", "60000"), other=hostile()), env=ENV)
    async with admin_client() as http, mcp_session(gw.url) as session:
        await wait_connected(http, gw, "hostile", timeout=60)
        giant = await session.tool("hostile__giant")
        assert len(giant.input_schema["properties"]) == 60000
        # One list change makes the gateway reload the giant list and diff it against the one it holds.
        await session.client.call_tool("hostile__flood", {"seconds": 0.01})
        health: list[float] = []
        calls: list[float] = []
        refreshed_at: float | None = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            latency, response = await timed_get(http, f"{gw.base}/healthz")
            assert response.status_code == 200
            health.append(latency)
            started = time.monotonic()
            echoed = await session.client.call_tool("other__echo", {"text": "ok"})
            calls.append(time.monotonic() - started)
            assert text_of(echoed) == "ok"
            if refreshed_at is None:
                hostile_stats = json.loads(text_of(await session.client.call_tool("hostile__stats", {})))
                if hostile_stats["lists"].get("tools/list", 0) >= 2:
                    refreshed_at = time.monotonic()
            elif time.monotonic() - refreshed_at > 3.0:
                break
            await anyio.sleep(0.05)
    print(
        f"\ngiant schema: worst /healthz {max(health) * 1000:.0f} ms, worst tools/call {max(calls) * 1000:.0f} ms "
        f"over {len(health)} probes around the reload"
    )
    assert refreshed_at is not None, "the upstream's list change was never followed by a reload"
    assert max(health) < LATENCY_BOUND
    assert max(calls) < LATENCY_BOUND


OTHER_FLOODS = {
    "log messages": ("notifications/message", {"level": "info", "data": "x" * 200}),
    "progress for a token nobody gave": ("notifications/progress", {"progressToken": 987654, "progress": 1}),
    "progress with a string token": ("notifications/progress", {"progressToken": "nobody", "progress": 1}),
    "resource updates": ("notifications/resources/updated", {"uri": "file:///x"}),
}


@pytest.mark.anyio
@pytest.mark.parametrize("kind", OTHER_FLOODS)
async def test_a_flood_of_other_notifications_is_bounded(gateway, kind: str) -> None:
    method, params = OTHER_FLOODS[kind]
    gw = gateway(config(hostile=hostile()), env=ENV)
    run = await flood_and_remove(gw, "hostile", {"method": method, "params": params}, "hostile__echo", "heard")
    health, latency, echoed, echo_latency = run.health, run.latency, run.echoed, run.echo_latency
    stats, rss_before, rss_after, metrics = run.stats, run.rss_before, run.rss_after, run.metrics
    deleted, delete_seconds = run.deleted, run.delete_seconds
    dropped = sample(metrics, "yrden_upstream_notifications_shed_total", server="hostile", reason="dropped")
    print(
        f"\n{kind}: {dropped} dropped by the gateway; {stats['sent']} sent; /healthz {latency * 1000:.0f} ms, a call to the flooding server "
        f"{echo_latency * 1000:.0f} ms; DELETE {delete_seconds:.2f} s; RSS {rss_before:.0f} -> {rss_after:.0f} MB"
    )
    assert health.status_code == 200 and echoed == "heard"
    assert deleted.status_code in (200, 204), deleted.text
    assert delete_seconds < STOP_BOUND
    assert latency < LATENCY_BOUND and echo_latency < LATENCY_BOUND
    assert rss_after - rss_before < RSS_GROWTH_BOUND_MB


@pytest.mark.anyio
async def test_an_upstream_that_never_answers_its_list_fails_within_its_request_timeout(gateway) -> None:
    silent = hostile("--silent", "tools/list", timeouts={"request": 1}, reconnect="never")
    gw = gateway(config(silent=silent, other=hostile()), env=ENV)
    async with admin_client() as http:
        await wait_connected(http, gw, "other")

        async def failed() -> dict | None:
            body = (await http.get(f"{gw.base}/api/v1/servers/silent")).json()
            return body if body.get("state") == "failed" else None

        started = time.monotonic()
        body = await await_until(failed, 20.0, interval=0.2, what="silent failed")
        print(f"\nsilent tools/list: failed {time.monotonic() - started:.1f} s after the gateway was ready")
    assert "tools/list" in json.dumps(body["lastError"]) or "timed out" in json.dumps(body["lastError"])


@pytest.mark.anyio
async def test_a_huge_paginated_list_is_taken_whole_and_reloads_without_stalling(gateway) -> None:
    gw = gateway(config(hostile=hostile("--tools", "20000", "--page-size", "200"), other=hostile()), env=ENV)
    async with admin_client() as http, mcp_session(gw.url) as session:
        body = await wait_connected(http, gw, "hostile", timeout=60)
        assert body["counts"]["tools"] == 20003
        await session.client.call_tool("hostile__flood", {"seconds": 0.5})
        # /healthz is probed until the reload after the flood's list changes is over (another 101 pages served,
        # a count that only grows), so the probes cover it however long it takes on a loaded machine.
        worst = 0.0
        probes = 0
        stats: dict = {}
        deadline = time.monotonic() + 60
        while probes < 30 or stats["lists"].get("tools/list", 0) < 2 * 101:
            latency, response = await timed_get(http, f"{gw.base}/healthz")
            assert response.status_code == 200
            worst = max(worst, latency)
            probes += 1
            if probes % 5 == 0 or probes >= 30:
                stats = json.loads(text_of(await session.client.call_tool("hostile__stats", {})))
            if time.monotonic() >= deadline:
                break
            await anyio.sleep(0.1)
    print(f"\nhuge list: {stats['lists'].get('tools/list', 0)} pages served, worst /healthz {worst * 1000:.0f} ms")
    assert stats["lists"].get("tools/list", 0) >= 2 * 101
    assert worst < LATENCY_BOUND


@pytest.fixture
def http_hostile(tmp_path: Path) -> Iterator[str]:
    """The hostile server over Streamable HTTP; yields its MCP URL."""
    port = free_port()
    with open(tmp_path / "hostile_http.log", "wb") as log:
        proc = subprocess.Popen(
            [PYTHON, str(HOSTILE_SERVER), "--port", str(port)], stdout=log, stderr=subprocess.STDOUT, env=clean_env()
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, (tmp_path / "hostile_http.log").read_text(errors="replace")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the hostile HTTP server did not listen"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait(timeout=10)


HTTP_FLOODS = {
    "list changes": {},
    # Requests of the server's own: each answer is a POST, so without a bound every ping costs a connection.
    "ping requests": {"method": "ping", "params": {"id": 7}},
}


@pytest.mark.anyio
@pytest.mark.parametrize("kind", HTTP_FLOODS)
async def test_a_flood_over_an_http_stream_is_bounded_and_delete_ends_it(gateway, http_hostile, kind: str) -> None:
    gw = gateway(config(remote={"url": http_hostile}, other=hostile()), env=ENV)
    run = await flood_and_remove(gw, "remote", HTTP_FLOODS[kind], "remote__echo", "over http")
    health, latency, echoed, echo_latency = run.health, run.latency, run.echoed, run.echo_latency
    stats, rss_before, rss_after, metrics = run.stats, run.rss_before, run.rss_after, run.metrics
    deleted, delete_seconds = run.deleted, run.delete_seconds
    coalesced = sample(metrics, "yrden_upstream_notifications_shed_total", server="remote", reason="coalesced")
    print(
        f"\nHTTP flood of {kind}: {coalesced} coalesced; {stats['sent']} sent, {stats['lists'].get('tools/list', 0)} "
        f"tools/list answered; /healthz {latency * 1000:.0f} ms, a call {echo_latency * 1000:.0f} ms; "
        f"DELETE {delete_seconds:.2f} s; RSS {rss_before:.0f} -> {rss_after:.0f} MB"
    )
    assert health.status_code == 200 and echoed == "over http"
    assert deleted.status_code in (200, 204), deleted.text
    assert delete_seconds < STOP_BOUND
    assert latency < LATENCY_BOUND and echo_latency < LATENCY_BOUND
    assert rss_after - rss_before < RSS_GROWTH_BOUND_MB
    if kind == "list changes":
        assert stats["lists"].get("tools/list", 0) < stats["sent"] / 10
        assert coalesced is not None and coalesced > 0
