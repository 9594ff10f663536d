"""One client must not take the gateway from the others: parked calls, sessions, what a session keeps, and a
legacy SSE stream that is never read are each bounded per client, and the others go on working.

The bounds asserted are what the others see (their call answered, their session opened) and the gateway's
RSS from /proc; figures are printed. Before these bounds: 32 parked calls made every other client's
elicitation fail on an HTTP upstream, one did on a stdio upstream; one client's sessions took every other
client's ``initialize``; 20 sessions with 10 MiB capabilities held 210 MB; a legacy SSE client that never
read held a gigabyte.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from mcp import types

from harness import (
    ASKING_SERVER,
    JSON_AND_SSE,
    LEGACY_VERSION,
    MODERN_VERSION,
    PYTHON,
    Gateway,
    answer_to,
    await_until,
    mcp_session,
    raw_mcp,
    text_of,
)

MIB = 1024 * 1024
PARKED_PER_CLIENT = 16


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


async def settled_rss(gw: Gateway, at_most: float) -> float:
    """The gateway's RSS once it is at most ``at_most`` MiB (freed memory is handed back shortly after work)."""
    try:
        return await await_until(lambda: (r := rss_mib(gw.pid)) <= at_most and r, timeout=15, interval=0.2)
    except TimeoutError:
        raise AssertionError(f"RSS stayed at {rss_mib(gw.pid):.0f} MiB, above {at_most:.0f} MiB, for 15 s") from None


async def answer_name(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


def modern_call(name: str, id: int) -> dict:
    """A 2026-07-28 call of a client that can be asked for elicitation (so its call is parked)."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "never-retries", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}, "_meta": meta}}


async def park(http: httpx2.AsyncClient, url: str, token: str, id: int) -> dict:
    """A call parked behind ``input_required`` that is never retried; the gateway's answer."""
    response = await http.post(
        url,
        content=json.dumps(modern_call("asking__ask_name", id)).encode(),
        headers={
            "Accept": JSON_AND_SSE,
            "Content-Type": "application/json",
            "MCP-Protocol-Version": MODERN_VERSION,
            "Mcp-Method": "tools/call",
            "Mcp-Name": "asking__ask_name",
            "Authorization": f"Bearer {token}",
        },
    )
    return answer_to(response, id)


async def victim_is_asked(gw: Gateway) -> str:
    """A handshake-era client that answers elicitation calls the asking tool: what it is told."""
    async with mcp_session(gw.url, mode="legacy", elicitation_callback=answer_name, label="victim") as s:
        await s.wait_for_tools({"asking__ask_name"})
        with anyio.fail_after(30):
            return text_of(await s.client.call_tool("asking__ask_name", {}))


async def test_parked_calls_do_not_take_an_http_upstreams_relay_slots(gateway, http_asking):
    gw = gateway({"mcpServers": {"asking": {"url": http_asking, "protocol": LEGACY_VERSION}}})
    assert await victim_is_asked(gw) == "Hello, Ada!"  # the server is connected and asks
    async with httpx2.AsyncClient(timeout=30) as http:
        baseline = rss_mib(gw.pid)
        # Two clients park as many calls as each may (32: as many as an upstream relays at once), never retrying.
        for token in ("first", "second"):
            answers = await asyncio.gather(*(park(http, gw.url, token, i) for i in range(PARKED_PER_CLIENT)))
            assert all(a["result"]["resultType"] == "input_required" for a in answers), answers[0]
        print(f"\n32 parked calls on an HTTP upstream: RSS MiB {baseline:.0f} -> {rss_mib(gw.pid):.0f}")
        # One more of the first client's is refused, naming its own bound.
        refused = await park(http, gw.url, "first", 99)
        assert f"this client has {PARKED_PER_CLIENT} calls waiting" in refused["error"]["message"], refused
        # Everyone else is still asked, and answers.
        assert await victim_is_asked(gw) == "Hello, Ada!"


async def test_a_parked_call_does_not_block_other_clients_asks_on_a_stdio_upstream(gateway):
    config = {"mcpServers": {"asking": {"command": PYTHON, "args": [str(ASKING_SERVER)], "protocol": LEGACY_VERSION}}}
    gw = gateway(config)
    assert await victim_is_asked(gw) == "Hello, Ada!"
    async with httpx2.AsyncClient(timeout=30) as http:
        parked = await park(http, gw.url, "never-retries", 1)
        assert parked["result"]["resultType"] == "input_required", parked
        # The parked call waits for its client; a stdio server's next request is another call's.
        assert await victim_is_asked(gw) == "Hello, Ada!"


async def first_message(response: httpx2.Response, id: int) -> dict:
    """The first message of a call's answer that is a request to the client or the call's own answer (the
    answer is JSON unless something must reach the client first, when it becomes an SSE stream)."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return json.loads(await response.aread())
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            message = json.loads(line[5:])
            if "method" in message or message.get("id") == id:
                return message
    raise AssertionError(f"call {id}: the stream ended with nothing for the client")


async def test_a_client_that_never_answers_takes_only_its_share_of_an_upstreams_relay_slots(gateway, http_asking):
    gw = gateway({"mcpServers": {"asking": {"url": http_asking, "protocol": LEGACY_VERSION}}})
    assert await victim_is_asked(gw) == "Hello, Ada!"
    silent = {"Authorization": "Bearer silent"}
    async with raw_mcp(gw.url) as raw, contextlib.AsyncExitStack() as streams:
        # A handshake-era client that declared elicitation and never answers: 32 calls (two sessions of 16,
        # as many as a session may be asked at once), each asked for a name on its own stream.
        asked = 0
        for _ in range(2):
            opened = await raw.post(initialize_body({"elicitation": {}}), headers=silent)
            session = {**silent, "Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY_VERSION}
            await raw.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
            for id in range(16):
                body = {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "asking__ask_name"}}
                response = await streams.enter_async_context(
                    raw.http.stream(
                        "POST", gw.url, content=json.dumps(body).encode(), headers={**raw.base_headers, **session}
                    )
                )
                message = await asyncio.wait_for(first_message(response, id), timeout=30)
                asked += message.get("method") == "elicitation/create"
        print(f"\na client that never answers: asked {asked} times of 32 calls")
        assert asked == 8, f"the silent client holds {asked} of the upstream's 32 relay slots"
        # Everyone else is still asked, and answers.
        assert await victim_is_asked(gw) == "Hello, Ada!"


def initialize_body(capabilities: dict | None = None) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "fair", "version": "1.0"},
        },
    }


def demo_only(yrden: Path, **gateway_keys) -> dict:
    return {"gateway": gateway_keys, "mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}}}


async def test_one_client_cannot_take_every_session(gateway, yrden):
    gw = gateway(demo_only(yrden, clientTokens=["token-greedy", "token-polite"], maxSessionsPerClient=3))
    greedy = {"Authorization": "Bearer token-greedy"}
    async with raw_mcp(gw.url) as raw:
        for _ in range(3):
            opened = await raw.post(initialize_body(), headers=greedy)
            assert opened.status_code == 200, opened.text[:300]
        refused = await raw.post(initialize_body(), headers=greedy)
        assert refused.status_code == 503, f"HTTP {refused.status_code}: {refused.text[:300]}"
        error = answer_to(refused, 0)["error"]
        assert "gateway.maxSessionsPerClient" in error["message"] and "3" in error["message"], error
        # Another client is not affected.
        polite = await raw.post(initialize_body(), headers={"Authorization": "Bearer token-polite"})
        assert polite.status_code == 200, f"HTTP {polite.status_code}: {polite.text[:300]}"
        assert polite.headers["mcp-session-id"]


async def test_twenty_sessions_with_10_mib_capabilities_keep_only_their_flags(gateway, yrden):
    gw = gateway(demo_only(yrden))
    blob = "z" * (10 * MIB)
    capabilities = {"elicitation": {"form": {}, "padding": blob}, "experimental": {}}
    async with raw_mcp(gw.url, timeout=120) as raw:
        baseline = rss_mib(gw.pid)
        for _ in range(20):
            response = await raw.post(initialize_body(capabilities))
            assert response.status_code == 200, f"HTTP {response.status_code}: {response.text[:300]}"
        after = await settled_rss(gw, baseline + 50)
        print(f"\n20 x 10 MiB capabilities: RSS MiB {baseline:.0f} -> {after:.0f} with the 20 sessions open")


async def test_a_legacy_sse_client_that_never_reads_is_cut_off_by_bytes(gateway, yrden):
    gw = gateway(demo_only(yrden))
    parts = urlsplit(gw.base)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(f"GET /sse HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    head = b""
    while not (endpoint := re.search(rb"sessionId=([0-9a-f]+)\r?\n", head)):
        head += await asyncio.wait_for(reader.read(4096), timeout=10)
    session_id = endpoint.group(1).decode()
    # From here on the client never reads its stream.
    messages = f"{gw.base}/messages?sessionId={session_id}"
    headers = {"Content-Type": "application/json"}
    big = "y" * MIB
    async with httpx2.AsyncClient(timeout=60) as http:

        async def post(body: dict) -> int:
            while True:
                status = (await http.post(messages, content=json.dumps(body).encode(), headers=headers)).status_code
                if status != 429:  # the stream's connection is behind on its POSTs: give it a moment
                    return status
                await asyncio.sleep(0.05)

        assert await post(initialize_body()) == 202
        assert await post({"jsonrpc": "2.0", "method": "notifications/initialized"}) == 202
        baseline = rss_mib(gw.pid)
        peak = baseline
        started = time.monotonic()
        sent, status = 0, 202
        while status == 202 and sent < 300:
            call = {"jsonrpc": "2.0", "id": sent, "method": "tools/call"}
            call["params"] = {"name": "demo__echo", "arguments": {"message": big}}
            status = await post(call)
            sent += 1
            peak = max(peak, rss_mib(gw.pid))
        print(
            f"\nlegacy SSE never read: {sent} x 1 MiB echo calls in {time.monotonic() - started:.1f} s; "
            f"POST answered {status}; RSS MiB {baseline:.0f} -> peak {peak:.0f}"
        )
        # The stream was cut: its POSTs find no stream any more.
        assert status == 404, f"{sent} calls of 1 MiB answers waited for a client that never reads"
        assert peak < baseline + 100, f"peak RSS {peak:.0f} MiB from {baseline:.0f} MiB"
    writer.close()
