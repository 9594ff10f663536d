"""A request the client cancelled is not answered (MCP cancellation: after `notifications/cancelled`, the
receiver should not send a response for that request).

Over stdio nothing at all comes back for it. Over Streamable HTTP the POST must still end with a message
for its id, so it ends with -32800 "Request cancelled", as the official SDK's HTTP transport does, and
never with the upstream's late result or error. The demo server's `slow` tool is the long call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx2
from anyio.streams.buffered import BufferedByteReceiveStream

from harness import JSON_AND_SSE, LEGACY_VERSION, MODERN_VERSION, clean_env, parse_sse

SLOW_CALL_ID = 2


def demo_only(yrden: Path) -> dict[str, Any]:
    return {"mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}}}


def line(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


INITIALIZE = {
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "cancel-test", "version": "1"},
    },
}
SLOW_CALL = {"id": SLOW_CALL_ID, "method": "tools/call", "params": {"name": "demo__slow", "arguments": {"seconds": 30}}}
CANCEL = {"method": "notifications/cancelled", "params": {"requestId": SLOW_CALL_ID, "reason": "the user stopped it"}}


async def test_stdio_sends_nothing_for_a_cancelled_request(yrden: Path, tmp_path: Path):
    config_file = tmp_path / "yrden.json"
    config_file.write_text(json.dumps(demo_only(yrden)))
    with anyio.fail_after(40):
        async with await anyio.open_process(
            [str(yrden), "stdio", "--config", str(config_file)], env=clean_env(), stderr=None
        ) as gateway:
            assert gateway.stdin is not None and gateway.stdout is not None
            reader = BufferedByteReceiveStream(gateway.stdout)
            received: list[dict[str, Any]] = []

            async def next_answer(wanted: int) -> dict[str, Any]:
                while True:
                    message = json.loads(await reader.receive_until(b"\n", 1 << 20))
                    received.append(message)
                    if message.get("id") == wanted and "method" not in message:
                        return message

            await gateway.stdin.send(line(INITIALIZE))
            assert "result" in await next_answer(1)
            await gateway.stdin.send(line({"method": "notifications/initialized"}))
            # The call, its cancellation right behind it, then a ping: the ping's answer proves both were read.
            await gateway.stdin.send(line(SLOW_CALL) + line(CANCEL) + line({"id": 3, "method": "ping"}))
            assert await next_answer(3) == {"jsonrpc": "2.0", "id": 3, "result": {}}
            await gateway.stdin.aclose()
            # Everything the gateway still writes, up to its exit: the cancelled call's task has ended by then.
            rest = b""
            try:
                while chunk := await reader.receive(65536):
                    rest += chunk
            except anyio.EndOfStream:
                pass
            received += [json.loads(text) for text in rest.decode().splitlines() if text.strip()]
            assert await gateway.wait() == 0
    answers = [m for m in received if m.get("id") == SLOW_CALL_ID and "method" not in m]
    assert answers == [], f"the cancelled request was answered: {answers}"


async def test_http_ends_a_cancelled_request_with_request_cancelled(gateway, yrden: Path):
    gw = gateway(demo_only(yrden))
    headers = {"Accept": JSON_AND_SSE, "Content-Type": "application/json"}
    async with httpx2.AsyncClient(base_url=gw.url, headers=headers, timeout=30) as http:
        opened = await http.post("", content=line(INITIALIZE))
        session = {"Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY_VERSION}
        initialized = await http.post("", content=line({"method": "notifications/initialized"}), headers=session)
        assert initialized.status_code == 202
        call = {**SLOW_CALL, "params": {**SLOW_CALL["params"], "_meta": {"progressToken": "p"}}}
        cancelled = False
        body = ""
        with anyio.fail_after(20):
            async with http.stream("POST", "", content=line(call), headers=session) as response:
                async for chunk in response.aiter_text():
                    body += chunk
                    # Cancel once the first progress shows the call is running upstream.
                    if not cancelled and "notifications/progress" in body:
                        notified = await http.post("", content=line(CANCEL), headers=session)
                        assert notified.status_code == 202
                        cancelled = True
    assert cancelled, f"no progress arrived, so the call was never cancelled: {body[:500]}"
    answers = [m for m in parse_sse(body) if m.get("id") == SLOW_CALL_ID]
    assert [a.get("error", a) for a in answers] == [{"code": -32800, "message": "Request cancelled"}], answers


MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
}


async def test_stdio_stateless_era_cancels_a_call_and_a_listen(yrden: Path, tmp_path: Path):
    """2026-07-28 over `yrden stdio`, no initialize: a call cancelled with notifications/cancelled gets no
    answer, a listen is acknowledged with its subscription id and, cancelled too, says nothing more."""
    config_file = tmp_path / "yrden.json"
    config_file.write_text(json.dumps(demo_only(yrden)))
    listen = {
        "id": "listen-1",
        "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": True, "promptsListChanged": False}, "_meta": MODERN_META},
    }
    slow = {**SLOW_CALL, "params": {**SLOW_CALL["params"], "_meta": MODERN_META}}
    echo = {"id": 3, "method": "tools/call", "params": {"name": "demo__echo", "arguments": {"message": "after"}}}
    echo["params"]["_meta"] = MODERN_META
    with anyio.fail_after(40):
        async with await anyio.open_process(
            [str(yrden), "stdio", "--config", str(config_file)], env=clean_env(), stderr=None
        ) as gateway:
            assert gateway.stdin is not None and gateway.stdout is not None
            reader = BufferedByteReceiveStream(gateway.stdout)
            received: list[dict[str, Any]] = []

            async def next_message(matches) -> dict[str, Any]:
                while True:
                    message = json.loads(await reader.receive_until(b"\n", 1 << 20))
                    received.append(message)
                    if matches(message):
                        return message

            await gateway.stdin.send(line(listen))
            ack = await next_message(lambda m: m.get("method") == "notifications/subscriptions/acknowledged")
            assert ack["params"]["notifications"] == {"toolsListChanged": True}
            assert ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen-1"

            await gateway.stdin.send(line(slow) + line(CANCEL) + line(echo))
            answer = await next_message(lambda m: m.get("id") == 3 and "method" not in m)
            assert answer["result"]["resultType"] == "complete" and "after" in json.dumps(answer["result"])

            cancel_listen = {"method": "notifications/cancelled", "params": {"requestId": "listen-1"}}
            await gateway.stdin.send(line(cancel_listen))
            await gateway.stdin.aclose()
            rest = b""
            try:
                while chunk := await reader.receive(65536):
                    rest += chunk
            except anyio.EndOfStream:
                pass
            received += [json.loads(text) for text in rest.decode().splitlines() if text.strip()]
            assert await gateway.wait() == 0
    assert [m for m in received if m.get("id") == SLOW_CALL_ID] == [], "the cancelled call was answered"
    assert [m for m in received if m.get("id") == "listen-1"] == [], "the cancelled listen was answered"
    assert not any("Mcp-Session-Id" in json.dumps(m) for m in received)
