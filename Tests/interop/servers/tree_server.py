"""A stdio MCP server that starts a tree of helpers, for the tests of how the gateway ends processes.

At start it spawns a helper (``yrden-tree-middle``), which spawns one of its own (``yrden-tree-leaf``): three
levels in the server's process group, every one holding the server's stdout open, as a real server's helpers
do (a browser, a language server, a shell). With ``--detached-leaf SECONDS`` the middle helper also starts
``yrden-tree-detached`` in a session of its own (so no group signal reaches it), which lives SECONDS seconds.
With ``--outlive-stdin`` the server keeps running after its input ends, as a careless server does. With
``--exit-after SECONDS`` it exits with status 3 that long after it started (a crash loop, under a reconnect
policy); ``--record FILE`` appends ``server PID`` and, once started, ``detached PID`` to FILE.

It speaks just enough MCP for the gateway to connect: ``initialize``, ``ping`` and an empty ``tools/list``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time

LEAF = "import time; time.sleep(600)"


def middle_code(detached_seconds: float | None, record: str | None) -> str:
    lines = [
        "import subprocess, sys, time",
        f"subprocess.Popen([sys.executable, '-c', {LEAF!r}, 'yrden-tree-leaf'])",
    ]
    if detached_seconds is not None:
        code = f"import time; time.sleep({detached_seconds})"
        lines.append(
            "detached = subprocess.Popen("
            f"[sys.executable, '-c', {code!r}, 'yrden-tree-detached'], start_new_session=True)"
        )
        if record is not None:
            lines.append(f"open({record!r}, 'a').write(f'detached {{detached.pid}}\\n')")
    lines.append("time.sleep(600)")
    return "\n".join(lines)


def answer(message: dict) -> dict | None:
    method = message.get("method")
    if "id" not in message:
        return None
    if method == "initialize":
        result = {
            "protocolVersion": message["params"].get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "tree", "version": "1"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": []}
    else:
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"no {method}"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--detached-leaf", type=float, default=None)
    parser.add_argument("--outlive-stdin", action="store_true")
    parser.add_argument("--exit-after", type=float, default=None)
    parser.add_argument("--record", default=None)
    args = parser.parse_args()
    if args.record is not None:
        with open(args.record, "a") as record:
            record.write(f"server {os.getpid()}\n")
    subprocess.Popen([sys.executable, "-c", middle_code(args.detached_leaf, args.record), "yrden-tree-middle"])
    if args.exit_after is not None:
        threading.Timer(args.exit_after, lambda: os._exit(3)).start()
    for line in sys.stdin:
        reply = answer(json.loads(line))
        if reply is not None:
            print(json.dumps(reply), flush=True)
    if args.outlive_stdin:
        time.sleep(600)


if __name__ == "__main__":
    main()
