"""A misbehaving upstream MCP server over Streamable HTTP, for the gateway's resilience tests.

An MCP server written with the official Python SDK (``MCPServer``, stateful, SSE answers by default),
wrapped in an ASGI middleware the test steers through side endpoints next to ``/mcp``:

- ``POST /control`` ``{"fail_next": N, "status": S, "methods": ["tools/list", ...]}``: the next N MCP
  requests that match answer HTTP S (plain text body) without reaching the server. ``methods`` matches the
  JSON-RPC method of a POST (``"response"`` for a JSON-RPC response) or the HTTP method of anything else
  (``"GET"``, ``"DELETE"``); leave it out to match every MCP request. ``"status": 0`` answers no status at
  all: the response starts (200, SSE) and the connection breaks off, as a network failure would.
  ``{"fail_next": 0}`` clears the rule.
- ``GET /control/stats``: what the middleware and the tools saw, as JSON: ``requests`` (MCP requests per
  method, failed ones included), ``arrivals`` (when each came, ``time.monotonic()`` seconds, per method),
  ``failed`` (those answered by the rule, per method), ``without_session`` (those that carried no
  ``Mcp-Session-Id``, per method), ``cancellations`` (the params of every
  ``notifications/cancelled``), ``tools`` (calls per tool), ``hang`` (started, cancelled, finished),
  ``sessions`` (the ids the server knows now), ``get_streams`` (the session ids of the GET streams open
  now), ``pid``.
- ``POST /control/delay`` ``{"initialize": 0.5, ...}``: from now on, hold each MCP request with that method
  this many seconds before the server sees it (a slow server); ``{}`` clears it.
- ``POST /control/forget-sessions``: drops every session and closes its streams, so the next request with
  an old session id gets 404 exactly as after a restart.

Tools: ``echo(text)``, ``hang(seconds)`` (sleeps; notes whether it was cancelled), ``tick(seconds,
interval)`` (sleeps, reporting progress every ``interval``), ``fail(message)`` (raises a tool error: an
``isError`` result), ``reject(code, message)`` (raises a JSON-RPC error with ``data``), ``add_tool(name)``
(registers a tool and announces ``notifications/tools/list_changed``) and ``pid()``.

Run it as ``python flaky_server.py --port P [--json-response]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MCP_PATH = "/mcp"
DROP = 0  # the rule's "status" that means: no status at all, the connection breaks off mid-response
SESSION_HEADER = b"mcp-session-id"

server = MCPServer("yrden-interop-flaky", version="1.0.0")


@dataclass
class FailureRule:
    """Answer the next ``remaining`` matching requests with ``status``."""

    remaining: int = 0
    status: int = 500
    methods: frozenset[str] | None = None  # None: every MCP request

    def take(self, names: list[str]) -> int | None:
        """The status to answer with when this request matches (and counts it), else None."""
        if self.remaining <= 0:
            return None
        if self.methods is not None and not self.methods.intersection(names):
            return None
        self.remaining -= 1
        return self.status


@dataclass
class Observations:
    """Everything the test may ask about, for the whole life of the process."""

    requests: Counter[str] = field(default_factory=Counter)
    arrivals: dict[str, list[float]] = field(default_factory=dict)  # time.monotonic() of each, per method
    failed: Counter[str] = field(default_factory=Counter)
    without_session: Counter[str] = field(default_factory=Counter)
    cancellations: list[Any] = field(default_factory=list)
    tools: Counter[str] = field(default_factory=Counter)
    hang: Counter[str] = field(default_factory=Counter)
    get_streams: Counter[str] = field(default_factory=Counter)


RULE = FailureRule()
DELAYS: dict[str, float] = {}  # seconds to hold a request, per method
SEEN = Observations()


# ---------------------------------------------------------------------------
# Tools


@server.tool(description="Answer with the text it was given.")
def echo(text: str) -> str:
    SEEN.tools["echo"] += 1
    return text


@server.tool(description="Sleep for `seconds`, then answer; a cancellation interrupts it.")
async def hang(seconds: float) -> str:
    SEEN.tools["hang"] += 1
    SEEN.hang["started"] += 1
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        SEEN.hang["cancelled"] += 1
        raise
    SEEN.hang["finished"] += 1
    return f"slept {seconds} s"


@server.tool(description="Sleep for `seconds`, reporting progress every `interval` seconds.")
async def tick(seconds: float, interval: float, ctx: Context) -> str:
    SEEN.tools["tick"] += 1
    elapsed = 0.0
    while elapsed < seconds:
        await anyio.sleep(interval)
        elapsed += interval
        await ctx.report_progress(elapsed, seconds, f"{elapsed:.1f} of {seconds} s")
    return f"ticked for {seconds} s"


@server.tool(description="Fail as a tool: the result has isError set and says `message`.")
def fail(message: str) -> str:
    SEEN.tools["fail"] += 1
    raise ToolError(message)


@server.tool(description="Fail as a protocol: a JSON-RPC error with `code`, `message` and data.")
def reject(code: int, message: str) -> str:
    SEEN.tools["reject"] += 1
    raise MCPError(code=code, message=message, data={"origin": "flaky_server", "code": code})


@server.tool(description="Register a new tool called `name`, then announce that the tool list changed.")
async def add_tool(name: str, ctx: Context) -> str:
    SEEN.tools["add_tool"] += 1

    def added() -> str:
        return f"{name} was added at runtime"

    server.add_tool(added, name=name, description=f"Added at runtime by add_tool({name!r}).")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


@server.tool(description="The process id of this server.")
def pid() -> int:
    SEEN.tools["pid"] += 1
    return os.getpid()


# ---------------------------------------------------------------------------
# The middleware


def jsonrpc_names(body: bytes) -> list[str]:
    """The method of each message in a POST body (``"response"`` for a response), ``["?"]`` if unreadable."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return ["?"]
    messages = parsed if isinstance(parsed, list) else [parsed]
    names = []
    for message in messages:
        if isinstance(message, dict) and isinstance(message.get("method"), str):
            names.append(message["method"])
        else:
            names.append("response")
    return names or ["?"]


def cancellations_in(body: bytes) -> list[Any]:
    try:
        parsed = json.loads(body)
    except ValueError:
        return []
    messages = parsed if isinstance(parsed, list) else [parsed]
    return [
        m.get("params") for m in messages if isinstance(m, dict) and m.get("method") == "notifications/cancelled"
    ]


async def read_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands out ``body`` once, then whatever the client sends next (its disconnect)."""
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def break_off(send: Send) -> None:
    """Starts an SSE answer, then fails, so the server closes the connection mid-response."""
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
    await send({"type": "http.response.body", "body": b": starting\n\n", "more_body": True})
    raise ConnectionAbortedError("flaky_server: dropping the connection mid-response, as told")


async def respond(send: Send, status: int, body: bytes, content_type: bytes = b"text/plain") -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", content_type)]})
    await send({"type": "http.response.body", "body": body})


async def respond_json(send: Send, value: Any, status: int = 200) -> None:
    await respond(send, status, json.dumps(value).encode(), b"application/json")


class Flaky:
    """Counts the MCP requests, fails the ones the rule picks, and serves ``/control``."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if path == "/control" or path.startswith("/control/"):
            await self.control(scope, receive, send)
            return
        if path.rstrip("/") != MCP_PATH:
            await self.app(scope, receive, send)
            return
        if scope["method"] == "POST":
            body = await read_body(receive)
            names = jsonrpc_names(body)
            SEEN.cancellations.extend(cancellations_in(body))
            receive = replaying(body, receive)
        else:
            names = [scope["method"]]
        SEEN.requests.update(names)
        if SESSION_HEADER not in dict(scope["headers"]):
            SEEN.without_session.update(names)
        for name in names:
            SEEN.arrivals.setdefault(name, []).append(time.monotonic())
        if (status := RULE.take(names)) is not None:
            SEEN.failed.update(names)
            if status == DROP:
                await break_off(send)
            await respond(send, status, f"injected failure: HTTP {status}".encode())
            return
        if delay := max((DELAYS.get(name, 0.0) for name in names), default=0.0):
            await anyio.sleep(delay)
        if scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        session = dict(scope["headers"]).get(SESSION_HEADER, b"").decode(errors="replace")
        SEEN.get_streams[session] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            SEEN.get_streams[session] -= 1

    async def control(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = (scope["method"], scope["path"].rstrip("/"))
        if route == ("GET", "/control/stats"):
            await respond_json(send, stats())
        elif route == ("POST", "/control"):
            try:
                order = json.loads(await read_body(receive) or b"{}")
                methods = order.get("methods")
                RULE.remaining = int(order.get("fail_next", 0))
                RULE.status = int(order.get("status", 500))
                RULE.methods = frozenset(methods) if methods is not None else None
            except (ValueError, TypeError, AttributeError) as e:
                await respond_json(send, {"error": str(e)}, 400)
                return
            await respond_json(send, {"fail_next": RULE.remaining, "status": RULE.status, "methods": methods})
        elif route == ("POST", "/control/delay"):
            try:
                order = json.loads(await read_body(receive) or b"{}")
                delays = {str(method): float(seconds) for method, seconds in order.items()}
            except (ValueError, TypeError, AttributeError) as e:
                await respond_json(send, {"error": str(e)}, 400)
                return
            DELAYS.clear()
            DELAYS.update(delays)
            await respond_json(send, DELAYS)
        elif route == ("POST", "/control/forget-sessions"):
            await respond_json(send, {"forgotten": await forget_sessions()})
        else:
            await respond(send, 404, b"no such control endpoint")


def stats() -> dict[str, Any]:
    return {
        "pid": os.getpid(),
        "requests": dict(SEEN.requests),
        "arrivals": SEEN.arrivals,
        "failed": dict(SEEN.failed),
        "without_session": dict(SEEN.without_session),
        "cancellations": SEEN.cancellations,
        "tools": dict(SEEN.tools),
        "hang": dict(SEEN.hang),
        "sessions": sorted(server.session_manager._server_instances),  # pyright: ignore[reportPrivateUsage]
        "get_streams": sorted(s for s, open_count in SEEN.get_streams.items() if open_count > 0),
    }


async def forget_sessions() -> list[str]:
    """Drops every session as a restart would: the ids answer 404 from now on, and their streams end."""
    manager = server.session_manager
    transports = dict(manager._server_instances)  # pyright: ignore[reportPrivateUsage]
    manager._server_instances.clear()  # pyright: ignore[reportPrivateUsage]
    manager._session_owners.clear()  # pyright: ignore[reportPrivateUsage]
    with anyio.CancelScope(shield=True):
        for transport in transports.values():
            await transport.terminate()
    return sorted(transports)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--json-response", action="store_true")
    args = parser.parse_args()
    app = Flaky(server.streamable_http_app(json_response=args.json_response))
    print(f"flaky_server: pid {os.getpid()}, port {args.port}", file=sys.stderr, flush=True)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
