"""A hostile upstream MCP server over stdio, for the gateway's bounds under a bad peer.

Raw JSON-RPC, one message per line, no SDK: it must be able to write faster than any SDK would let it,
and to say things no well-behaved server says. It speaks the handshake era (``initialize``) and offers:

- tools ``echo(text)``; ``flood(seconds, method, params)``: from now on, for ``seconds``, write
  ``method`` notifications (default ``notifications/tools/list_changed``) as fast as the pipe takes them,
  from a background thread, and answer at once; ``stats()``: what it saw (``lists`` per list method,
  ``floods`` finished, ``sent`` notifications written, ``pid``);
- ``--schema-properties N``: one more tool, ``giant``, whose input schema has N properties;
- ``--tools N``: N more small tools ``t0`` .. ``t{N-1}``, served ``--page-size`` per ``tools/list`` page;
- ``--silent METHOD`` (repeatable): never answer requests of that method (a peer that stops answering);
- ``--template T`` (repeatable): list resource template ``T``; ``resources/read`` of any URI answers one text
  content, ``read <uri>``.

With ``--port P`` it serves the same over Streamable HTTP instead (stateless, JSON answers; ``GET /mcp``
opens the stream that ``flood`` then floods with SSE events).

Run it as ``python hostile_server.py [--port P] [--schema-properties N] [--tools N] [--page-size P] [--silent M]
[--template T]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections import Counter
from typing import Any

OUT_LOCK = threading.Lock()
STATS: Counter[str] = Counter()


def write(message: dict[str, Any]) -> None:
    line = (json.dumps(message, separators=(",", ":")) + "\n").encode()
    with OUT_LOCK:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()


def small_tool(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": properties}}


def build_tools(args: argparse.Namespace) -> list[dict[str, Any]]:
    tools = [
        small_tool("echo", "Echoes text.", {"text": {"type": "string"}}),
        small_tool(
            "flood",
            "Floods the gateway with notifications for a while.",
            {"seconds": {"type": "number"}, "method": {"type": "string"}, "params": {"type": "object"}},
        ),
        small_tool("stats", "What this server saw.", {}),
    ]
    if args.schema_properties:
        properties = {
            f"p{i}": {"type": "string", "description": f"property number {i}"} for i in range(args.schema_properties)
        }
        tools.append(small_tool("giant", "A tool with a giant input schema.", properties))
    tools += [small_tool(f"t{i}", f"Small tool {i}.", {}) for i in range(args.tools)]
    return tools


def notification_text(method: str, params: dict[str, Any] | None) -> str:
    """One frame; ``params`` holding ``"id"`` makes it a request with that id (the id taken out of params)."""
    frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None and "id" in params:
        params = dict(params)
        frame["id"] = params.pop("id")
    if params:
        frame["params"] = params
    return json.dumps(frame, separators=(",", ":"))


# HTTP mode: the flood orders the open GET streams pick up (seconds, method, params).
HTTP_FLOODS: list[tuple[float, str, dict[str, Any] | None]] = []
HTTP_MODE = False


def flood(seconds: float, method: str, params: dict[str, Any] | None) -> None:
    line = (notification_text(method, params) + "\n").encode()
    batch = line * 64
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            with OUT_LOCK:
                sys.stdout.buffer.write(batch)
                sys.stdout.buffer.flush()
            STATS["sent"] += 64
    except (BrokenPipeError, OSError):
        return
    STATS["floods"] += 1


def text_result(value: Any) -> dict[str, Any]:
    text = value if isinstance(value, str) else json.dumps(value)
    return {"content": [{"type": "text", "text": text}], "isError": False}


def call_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if name == "echo":
        return text_result(str(arguments.get("text", "")))
    if name == "flood":
        seconds = float(arguments.get("seconds", 3))
        method = str(arguments.get("method", "notifications/tools/list_changed"))
        if HTTP_MODE:
            HTTP_FLOODS.append((seconds, method, arguments.get("params")))
            return text_result(f"flooding {method} for {seconds} s")
        thread = threading.Thread(target=flood, args=(seconds, method, arguments.get("params")), daemon=True)
        thread.start()
        return text_result(f"flooding {method} for {seconds} s")
    if name == "stats":
        lists = {k[5:]: v for k, v in STATS.items() if k.startswith("list:")}
        return text_result({"lists": lists, "floods": STATS["floods"], "sent": STATS["sent"], "pid": os.getpid()})
    return text_result(f"called {name}")


def answer(request: dict[str, Any], tools: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any] | None:
    method = request.get("method")
    params = request.get("params") or {}
    if method in args.silent:
        return None
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {"listChanged": True}, "resources": {"listChanged": True, "subscribe": True}},
            "serverInfo": {"name": "yrden-interop-hostile", "version": "1.0.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        STATS["list:tools/list"] += 1
        start = int(params.get("cursor") or 0)
        page = tools[start : start + args.page_size]
        result: dict[str, Any] = {"tools": page}
        if start + args.page_size < len(tools):
            result["nextCursor"] = str(start + args.page_size)
        return result
    if method == "resources/list":
        STATS[f"list:{method}"] += 1
        return {"resources": []}
    if method == "resources/templates/list":
        STATS[f"list:{method}"] += 1
        return {"resourceTemplates": [{"uriTemplate": t, "name": f"template {i}"} for i, t in enumerate(args.template)]}
    if method == "resources/read":
        uri = str(params.get("uri"))
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": f"read {uri}"}]}
    if method == "tools/call":
        return call_tool(str(params.get("name")), params.get("arguments") or {})
    return None


def serve_http(port: int, tools: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """A minimal stateless Streamable HTTP server: JSON answers to POST, an SSE stream on GET."""
    import anyio
    import uvicorn

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] != "/mcp":
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        if scope["method"] == "POST":
            body = b""
            while True:
                chunk = await receive()
                body += chunk.get("body", b"")
                if not chunk.get("more_body"):
                    break
            message = json.loads(body)
            if "id" not in message or "method" not in message:
                await send({"type": "http.response.start", "status": 202, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
            result = answer(message, tools, args)
            if result is None and message["method"] in args.silent:
                await anyio.sleep_forever()
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
            if result is None:
                reply["error"] = {"code": -32601, "message": "Method not found"}
            else:
                reply["result"] = result
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": json.dumps(reply).encode()})
            return
        if scope["method"] == "GET":
            headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": b": open\n\n", "more_body": True})
            while True:
                if not HTTP_FLOODS:
                    await anyio.sleep(0.05)
                    continue
                seconds, method, params = HTTP_FLOODS.pop(0)
                batch = (f"event: message\ndata: {notification_text(method, params)}\n\n" * 64).encode()
                deadline = time.monotonic() + seconds
                while time.monotonic() < deadline:
                    await send({"type": "http.response.body", "body": batch, "more_body": True})
                    STATS["sent"] += 64
                STATS["floods"] += 1
        await send({"type": "http.response.start", "status": 405, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main() -> None:
    global HTTP_MODE
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--schema-properties", type=int, default=0)
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--page-size", type=int, default=1000)
    parser.add_argument("--silent", action="append", default=[])
    parser.add_argument("--template", action="append", default=[])
    args = parser.parse_args()
    tools = build_tools(args)
    if args.port:
        HTTP_MODE = True
        serve_http(args.port, tools, args)
        return
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if "id" not in message or "method" not in message:
            continue  # notifications and answers to our (nonexistent) requests
        result = answer(message, tools, args)
        if result is None and message["method"] in args.silent:
            continue
        if result is None:
            write({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
        else:
            write({"jsonrpc": "2.0", "id": message["id"], "result": result})


if __name__ == "__main__":
    main()
