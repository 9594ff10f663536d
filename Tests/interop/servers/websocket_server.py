"""An upstream MCP server over WebSocket for the interop tests: the official Python SDK 1.x's ``websocket_server``.

The 2.x SDK the other tests use has no WebSocket transport; 1.x ships one (client and server), so this runs
under ``.venv-1x`` (``mcp==1.26.0`` with ``websockets``, pinned in ``requirements-1x.txt``). Run it as
``python websocket_server.py --port P``: it serves MCP at ``ws://127.0.0.1:P/ws`` with the ``mcp``
subprotocol. When ``WS_SERVER_TOKEN`` is set, an upgrade without ``Authorization: Bearer <token>`` gets 403.

Tools: ``greet(name)``, ``pid()``, and ``flood(count)``, which sends ``count`` log notifications as fast as it
can before it answers.
"""

from __future__ import annotations

import argparse
import os

import uvicorn
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.websocket import websocket_server
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

server = FastMCP("yrden-interop-websocket")


@server.tool(description="Greet someone by name.")
def greet(name: str) -> str:
    return f"Hello over WebSocket, {name}!"


@server.tool(description="The process id of this server.")
def pid() -> int:
    return os.getpid()


@server.tool(description="Send `count` log notifications as fast as possible, then answer.")
async def flood(count: int, ctx: Context) -> str:
    for index in range(count):
        await ctx.info(f"flood {index} " + "x" * 200)
    return f"sent {count}"


async def endpoint(websocket: WebSocket) -> None:
    token = os.environ.get("WS_SERVER_TOKEN")
    if token and websocket.headers.get("authorization") != f"Bearer {token}":
        await websocket.close(code=1008)  # before the upgrade is accepted: uvicorn answers 403
        return
    async with websocket_server(websocket.scope, websocket.receive, websocket.send) as (read_stream, write_stream):
        mcp = server._mcp_server
        await mcp.run(read_stream, write_stream, mcp.create_initialization_options())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    app = Starlette(routes=[WebSocketRoute("/ws", endpoint)])
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", ws="websockets-sansio")


if __name__ == "__main__":
    main()
