"""A hostile upstream MCP server over stdio, for the gateway's bounds under a bad peer.

Raw JSON-RPC, one message per line, no SDK: it must be able to write faster than any SDK would let it,
and to say things no well-behaved server says. It speaks the handshake era (``initialize``) and offers:

- tools ``echo(text)``; ``flood(seconds, method, params)``: from now on, for ``seconds``, write
  ``method`` notifications (default ``notifications/tools/list_changed``) as fast as the pipe takes them,
  from a background thread, and answer at once; ``stats()``: what it saw (``lists`` per list method,
  ``floods`` finished, ``sent`` notifications written, ``pid``);
- ``--schema-properties N``: one more tool, ``giant``, whose input schema has N properties;
- ``--tools N``: N more small tools ``t0`` .. ``t{N-1}``, served ``--page-size`` per ``tools/list`` page;
- ``--silent METHOD`` (repeatable): never answer requests of that method (a peer that stops answering).

Run it as ``python hostile_server.py [--schema-properties N] [--tools N] [--page-size P] [--silent M]``.
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


def flood(seconds: float, method: str, params: dict[str, Any] | None) -> None:
    frame = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        frame["params"] = params
    line = (json.dumps(frame, separators=(",", ":")) + "\n").encode()
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
    if method in ("resources/list", "resources/templates/list"):
        STATS[f"list:{method}"] += 1
        key = "resources" if method == "resources/list" else "resourceTemplates"
        return {key: []}
    if method == "tools/call":
        return call_tool(str(params.get("name")), params.get("arguments") or {})
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--schema-properties", type=int, default=0)
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--page-size", type=int, default=1000)
    parser.add_argument("--silent", action="append", default=[])
    args = parser.parse_args()
    tools = build_tools(args)
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
