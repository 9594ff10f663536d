"""A request the client cancelled is not answered (MCP cancellation: after `notifications/cancelled`, the
receiver should not send a response for that request).

Over stdio nothing at all comes back for it. Over Streamable HTTP the POST must still end with a message
for its id, so it ends with -32800 "Request cancelled", as the official SDK's HTTP transport does, and
never with the upstream's late result or error. The demo server's `slow` tool is the long call.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
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


class StdioPeer:
    """`yrden stdio` as a raw client drives it: lines in, every message out kept in ``received``."""

    def __init__(self, process: anyio.abc.Process):
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.reader = BufferedByteReceiveStream(process.stdout)
        self.received: list[dict[str, Any]] = []

    async def send(self, *messages: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(b"".join(line(m) for m in messages))

    async def next(self, matches: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            message = json.loads(await self.reader.receive_until(b"\n", 1 << 20))
            self.received.append(message)
            if matches(message):
                return message

    async def close(self) -> int:
        """Closes stdin, keeps every message the gateway still writes up to its exit, returns its status."""
        assert self.process.stdin is not None
        await self.process.stdin.aclose()
        rest = b""
        try:
            while chunk := await self.reader.receive(65536):
                rest += chunk
        except anyio.EndOfStream:
            pass
        self.received += [json.loads(text) for text in rest.decode().splitlines() if text.strip()]
        return await self.process.wait()


@asynccontextmanager
async def stdio_gateway(yrden: Path, tmp_path: Path) -> AsyncIterator[StdioPeer]:
    config_file = tmp_path / "yrden.json"
    config_file.write_text(json.dumps(demo_only(yrden)))
    async with await anyio.open_process(
        [str(yrden), "stdio", "--config", str(config_file)], env=clean_env(), stderr=None
    ) as process:
        yield StdioPeer(process)


def answers_to(wanted: Any) -> Callable[[dict[str, Any]], bool]:
    return lambda message: message.get("id") == wanted and "method" not in message


async def test_stdio_sends_nothing_for_a_cancelled_request(yrden: Path, tmp_path: Path):
    with anyio.fail_after(40):
        async with stdio_gateway(yrden, tmp_path) as peer:
            await peer.send(INITIALIZE)
            assert "result" in await peer.next(answers_to(1))
            await peer.send({"method": "notifications/initialized"})
            # The call, its cancellation right behind it, then a ping: the ping's answer proves both were read.
            await peer.send(SLOW_CALL, CANCEL, {"id": 3, "method": "ping"})
            assert await peer.next(answers_to(3)) == {"jsonrpc": "2.0", "id": 3, "result": {}}
            # Everything the gateway still writes, up to its exit: the cancelled call's task has ended by then.
            assert await peer.close() == 0
    answers = [m for m in peer.received if answers_to(SLOW_CALL_ID)(m)]
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
    listen = {
        "id": "listen-1",
        "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": True, "promptsListChanged": False}, "_meta": MODERN_META},
    }
    slow = {**SLOW_CALL, "params": {**SLOW_CALL["params"], "_meta": MODERN_META}}
    echo = {"id": 3, "method": "tools/call", "params": {"name": "demo__echo", "arguments": {"message": "after"}}}
    echo["params"]["_meta"] = MODERN_META
    with anyio.fail_after(40):
        async with stdio_gateway(yrden, tmp_path) as peer:
            await peer.send(listen)
            ack = await peer.next(lambda m: m.get("method") == "notifications/subscriptions/acknowledged")
            assert ack["params"]["notifications"] == {"toolsListChanged": True}
            assert ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen-1"

            await peer.send(slow, CANCEL, echo)
            answer = await peer.next(answers_to(3))
            assert answer["result"]["resultType"] == "complete" and "after" in json.dumps(answer["result"])

            await peer.send({"method": "notifications/cancelled", "params": {"requestId": "listen-1"}})
            assert await peer.close() == 0
    received = peer.received
    assert [m for m in received if m.get("id") == SLOW_CALL_ID] == [], "the cancelled call was answered"
    assert [m for m in received if m.get("id") == "listen-1"] == [], "the cancelled listen was answered"
    assert not any("Mcp-Session-Id" in json.dumps(m) for m in received)
