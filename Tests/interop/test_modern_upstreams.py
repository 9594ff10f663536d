"""Upstreams of either era: the gateway probes each server with ``server/discover`` and speaks 2026-07-28 to
those that answer it, the handshake to the rest, and any client of either era reaches both.

The peers are the official Python SDK's servers: ``sample_server.py`` over stdio (dual-era, and with
``--modern-only`` the SDK's modern loop alone, which refuses ``initialize``), ``http_server.py`` over
Streamable HTTP, the gateway's own demo server (handshake only), and ``hostile_server.py`` never answering
the probe (a handshake server that stays silent on requests it does not know).
"""

from __future__ import annotations

import anyio
import httpx2
import pytest

from harness import INTEROP_DIR, MODES, PYTHON, SAMPLE_SERVER, answer_to, await_until, mcp_session, raw_mcp, text_of
from test_http_upstream import SECRET, VARIANTS, http_upstream, remote_config  # noqa: F401 (a fixture)

HOSTILE_SERVER = INTEROP_DIR / "servers" / "hostile_server.py"


def sample(*flags: str, **entry) -> dict:
    return {"command": PYTHON, "args": [str(SAMPLE_SERVER), *flags], **entry}


def server_status(gw, server_id: str) -> dict:
    return httpx2.get(f"{gw.base}/api/v1/servers/{server_id}", timeout=10).json()


async def connected(gw, server_id: str, timeout: float = 30.0) -> dict:
    async def status() -> dict | None:
        body = server_status(gw, server_id)
        return body if body["state"] == "connected" else None

    return await await_until(status, timeout, what=f"{server_id} connected")


async def test_each_server_is_spoken_to_in_its_own_era(gateway, yrden):
    gw = gateway(
        {
            "mcpServers": {
                "dual": sample(),
                "modern": sample("--modern-only"),
                "pinned": sample(protocol="2025-11-25"),
                "demo": {"command": str(yrden), "args": ["demo-server"]},
            }
        }
    )
    eras = {server_id: (await connected(gw, server_id))["era"] for server_id in ("dual", "modern", "pinned", "demo")}
    assert eras == {"dual": "modern", "modern": "modern", "pinned": "handshake", "demo": "handshake"}
    health = httpx2.get(f"{gw.base}/healthz", timeout=10).json()["servers"]
    assert {server_id: entry.get("era") for server_id, entry in health.items()} == eras


@pytest.mark.parametrize("mode", MODES)
async def test_a_modern_only_server_serves_clients_of_both_eras(gateway, mode):
    gw = gateway({"mcpServers": {"modern": sample("--modern-only")}})
    await connected(gw, "modern")
    async with mcp_session(gw.url, mode=mode) as s:
        await s.wait_for_tools({"modern__greet", "modern__add_tool"})
        with anyio.fail_after(15):
            result = await s.client.call_tool("modern__greet", {"name": "Ada"})
        assert text_of(result) == "Hello, Ada!"
        with anyio.fail_after(15):
            read = await s.client.read_resource("sample://readme")
        assert text_of(read) == "Sample server for the Yrden interop tests.\n"
        with anyio.fail_after(15):
            prompt = await s.client.get_prompt("modern__summarize", {"text": "abc"})
        assert "abc" in text_of(prompt)


async def test_progress_of_a_modern_upstream_reaches_the_caller(gateway):
    gw = gateway({"mcpServers": {"modern": sample("--modern-only")}})
    await connected(gw, "modern")
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with mcp_session(gw.url, mode="legacy") as s:
        with anyio.fail_after(15):
            result = await s.client.call_tool("modern__progress", {"steps": 3}, progress_callback=on_progress)
        assert text_of(result) == "counted to 3"
    assert seen == [1, 2, 3]


@pytest.mark.parametrize("mode", MODES)
async def test_a_modern_upstreams_list_change_arrives_through_its_listen_stream(gateway, mode):
    gw = gateway({"mcpServers": {"modern": sample("--modern-only")}})
    await connected(gw, "modern")
    async with mcp_session(gw.url, mode=mode, subscribe=True, label="watcher") as s:
        await s.wait_for_tools({"modern__add_tool"})
        seen = len(s.notifications)
        with anyio.fail_after(15):
            await s.client.call_tool("modern__add_tool", {"name": "fresh"})
        await s.wait_for_notification("notifications/tools/list_changed", timeout=10, after=seen)
        await s.wait_for_tools({"modern__fresh"}, timeout=10)
        with anyio.fail_after(15):
            called = await s.client.call_tool("modern__fresh", {})
        assert text_of(called) == "fresh was added at runtime"


async def test_pinning_the_handshake_to_a_modern_only_server_says_what_to_change(gateway):
    gw = gateway({"mcpServers": {"modern": sample("--modern-only", protocol="2025-11-25")}})

    async def failure() -> dict | None:
        body = server_status(gw, "modern")
        return body["lastError"] if body.get("lastError") else None

    error = await await_until(failure, 30, what="a failure")
    assert "speaks only MCP 2026-07-28" in error["message"]
    assert '"protocol"' in error["message"]


async def test_a_server_silent_on_the_probe_is_initialized_after_the_discover_timeout(gateway):
    entry = {
        "command": PYTHON,
        "args": [str(HOSTILE_SERVER), "--silent", "server/discover"],
        "timeouts": {"discover": 1},
    }
    gw = gateway({"mcpServers": {"quiet": entry}})
    status = await connected(gw, "quiet", timeout=20)
    assert status["era"] == "handshake"
    async with mcp_session(gw.url, mode="auto") as s:
        with anyio.fail_after(15):
            result = await s.client.call_tool("quiet__echo", {"text": "still here"})
        assert "still here" in text_of(result)


@pytest.mark.parametrize("http_upstream", list(VARIANTS), indirect=True)
@pytest.mark.parametrize("mode", MODES)
async def test_a_modern_http_upstream_is_reached_without_a_session(http_upstream, gateway, mode):
    gw = gateway(remote_config(http_upstream), env={"TEST_SECRET": SECRET})
    status = await connected(gw, "remote")
    assert status["era"] == "modern"
    async with mcp_session(gw.url, mode=mode) as s:
        with anyio.fail_after(15):
            result = await s.client.call_tool("remote__greet", {"name": "Émile"})
        assert text_of(result) == "Hello over HTTP, Émile!"


@pytest.mark.parametrize("http_upstream", ["sse"], indirect=True)
async def test_an_http_upstream_pinned_to_the_handshake_keeps_its_session(http_upstream, gateway):
    config = remote_config(http_upstream)
    config["mcpServers"]["remote"]["protocol"] = "2025-11-25"
    gw = gateway(config, env={"TEST_SECRET": SECRET})
    status = await connected(gw, "remote")
    assert status["era"] == "handshake"
    async with mcp_session(gw.url, mode="auto") as s:
        with anyio.fail_after(15):
            result = await s.client.call_tool("remote__greet", {"name": "Ada"})
        assert text_of(result) == "Hello over HTTP, Ada!"


async def test_the_merged_lists_promise_no_more_freshness_than_the_servers_behind_them(gateway):
    from test_stateless_era import headers, modern

    gw = gateway({"mcpServers": {"fresh": sample("--modern-only", "--list-ttl", "45000")}})
    await connected(gw, "fresh")
    async with raw_mcp(gw.url) as raw:
        tools = answer_to(await raw.post(modern("tools/list"), headers=headers("tools/list")), 1)["result"]
        prompts = answer_to(await raw.post(modern("prompts/list"), headers=headers("prompts/list")), 1)["result"]
    assert {t["name"] for t in tools["tools"]} >= {"fresh__greet"}
    assert (tools["ttlMs"], tools["cacheScope"]) == (45000, "public"), tools
    assert (prompts["ttlMs"], prompts["cacheScope"]) == (0, "private"), "the server promised nothing for prompts"

    # A second server that promises nothing makes the merged list stale at once, and no longer public.
    added = httpx2.post(
        f"{gw.base}/api/v1/servers", json={"id": "later", "config": sample("--modern-only")}, timeout=10
    )
    assert added.status_code == 201, added.text
    await connected(gw, "later")
    async with raw_mcp(gw.url) as raw:
        merged = answer_to(await raw.post(modern("tools/list"), headers=headers("tools/list")), 1)["result"]
    assert {"fresh__greet", "later__greet"} <= {t["name"] for t in merged["tools"]}
    assert (merged["ttlMs"], merged["cacheScope"]) == (0, "private"), merged
