"""A stdio MCP server with a catalog as large as an operator's biggest, for the loop-lag probe (test_loop_lag.py).

Raw JSON-RPC, one message per line, no SDK: listing 10,000 tools or 100,000 resources must cost the server
little, so what is measured is the gateway. It speaks the handshake era (``initialize``) and offers:

- ``echo(text)``: answers ``text`` at once (the small call a prober times);
- ``--tools N``: N more tools named ``{noun}_{verb}_{i}`` (20 nouns, 10 verbs), so profile patterns such as
  ``files_read_*`` pick out a share of them; served ``--page-size`` per ``tools/list`` page;
- ``shift(start, count)``: rewrites the descriptions of tools ``start`` .. ``start+count-1`` at once and announces
  ``notifications/tools/list_changed`` (pinned definitions changing);
- ``churn(seconds, every, count)``: for ``seconds``, every ``every`` seconds, moves the window of listed tools on
  by ``count`` (that many tools leave, as many new ones come) and announces the change; answers when it ends,
  with the number of generations;
- ``--resources N``: N resources ``res://<authority>/item/{i}`` (authority from ``--authority``), listed
  ``--page-size`` per page, none templated; ``resources/read`` of any URI answers one text content, so a read of
  an unlisted URI of the same origin reaches this server only by the gateway's origin lookup.

Run it as ``python catalog_server.py [--tools N] [--resources N] [--authority A] [--page-size P]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from typing import Any

NOUNS = [
    "files", "issues", "pages", "users", "tickets", "builds", "alerts", "notes", "orders", "events",
    "tasks", "repos", "images", "tables", "queues", "mails", "charts", "spaces", "calls", "logs",
]  # fmt: skip
VERBS = ["read", "list", "create", "update", "delete", "search", "sync", "export", "archive", "watch"]

OUT_LOCK = threading.Lock()
STATE_LOCK = threading.Lock()


def write(message: dict[str, Any]) -> None:
    line = (json.dumps(message, separators=(",", ":")) + "\n").encode()
    with OUT_LOCK:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()


def tool_name(i: int) -> str:
    return f"{NOUNS[i % len(NOUNS)]}_{VERBS[(i // len(NOUNS)) % len(VERBS)]}_{i}"


def tool(i: int, revision: int) -> dict[str, Any]:
    noun, verb = NOUNS[i % len(NOUNS)], VERBS[(i // len(NOUNS)) % len(VERBS)]
    description = f"{verb.capitalize()} {noun} of workspace {i}: the {noun} an operator keeps, by id or by name."
    if revision:
        description += f" Revision {revision}."
    return {
        "name": tool_name(i),
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "string", "description": f"the id of one of the {noun}"}},
        },
    }


FIXED_TOOLS = [
    {"name": "echo", "description": "Echoes text.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {
        "name": "shift",
        "description": "Rewrites the descriptions of some tools at once.",
        "inputSchema": {"type": "object", "properties": {"start": {"type": "integer"}, "count": {"type": "integer"}}},
    },
    {
        "name": "churn",
        "description": "Moves the window of listed tools on, again and again, for a while.",
        "inputSchema": {
            "type": "object",
            "properties": {"seconds": {"type": "number"}, "every": {"type": "number"}, "count": {"type": "integer"}},
        },
    },
]


class Catalog:
    """The tools listed now: a window ``first`` .. ``first+size-1`` of numbered tools, each at a revision."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.first = 0
        self.revisions: dict[int, int] = {}
        self.tools = self.build()

    def build(self) -> list[dict[str, Any]]:
        numbered = [tool(i, self.revisions.get(i, 0)) for i in range(self.first, self.first + self.size)]
        return FIXED_TOOLS + numbered


def announce_tools_changed() -> None:
    write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})


def text_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


def churn(catalog: Catalog, request_id: Any, seconds: float, every: float, count: int) -> None:
    generations = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with STATE_LOCK:
            catalog.first += count
            catalog.tools = catalog.build()
        generations += 1
        announce_tools_changed()
        time.sleep(every)
    write({"jsonrpc": "2.0", "id": request_id, "result": text_result(f"{generations} generations")})


def call_tool(catalog: Catalog, request_id: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    if name == "echo":
        return text_result(str(arguments.get("text", "")))
    if name == "shift":
        start, count = int(arguments.get("start", 0)), int(arguments.get("count", 1))
        with STATE_LOCK:
            for i in range(start, start + count):
                catalog.revisions[i] = catalog.revisions.get(i, 0) + 1
            catalog.tools = catalog.build()
        announce_tools_changed()
        return text_result(f"shifted {count}")
    if name == "churn":
        args = (catalog, request_id, float(arguments.get("seconds", 5)), float(arguments.get("every", 0.25)))
        threading.Thread(target=churn, args=(*args, int(arguments.get("count", 1000))), daemon=True).start()
        return None  # answered when the churn ends
    return text_result(f"called {name}")


def page(items: list[Any], cursor: Any, size: int, key: str) -> dict[str, Any]:
    start = int(cursor or 0)
    result: dict[str, Any] = {key: items[start : start + size]}
    if start + size < len(items):
        result["nextCursor"] = str(start + size)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--resources", type=int, default=0)
    parser.add_argument("--authority", default="catalog")
    parser.add_argument("--page-size", type=int, default=1000)
    args = parser.parse_args()
    catalog = Catalog(args.tools)
    resources = [
        {"uri": f"res://{args.authority}/item/{i}", "name": f"item {i}", "mimeType": "text/plain"}
        for i in range(args.resources)
    ]
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if "id" not in message or "method" not in message:
            continue  # notifications
        method, params = message["method"], message.get("params") or {}
        result: dict[str, Any] | None
        if method == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {"listChanged": True}, "resources": {}},
                "serverInfo": {"name": "yrden-interop-catalog", "version": "1.0.0"},
            }
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            with STATE_LOCK:
                tools = catalog.tools
            result = page(tools, params.get("cursor"), args.page_size, "tools")
        elif method == "resources/list":
            result = page(resources, params.get("cursor"), args.page_size, "resources")
        elif method == "resources/templates/list":
            result = {"resourceTemplates": []}
        elif method == "resources/read":
            uri = str(params.get("uri"))
            result = {"contents": [{"uri": uri, "mimeType": "text/plain", "text": f"read {uri}"}]}
        elif method == "tools/call":
            result = call_tool(catalog, message["id"], str(params.get("name")), params.get("arguments") or {})
            if result is None:
                continue
        else:
            write({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
            continue
        write({"jsonrpc": "2.0", "id": message["id"], "result": result})


if __name__ == "__main__":
    main()
