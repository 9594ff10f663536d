"""An upstream MCP server over HTTP for the interop tests, written with the official Python SDK.

Run it as ``python http_server.py --port P [--json-response] [--stateless] [--legacy-sse]``.

- default: stateful (the server mints an ``Mcp-Session-Id``) and answers requests with SSE streams;
- ``--json-response``: answers requests with one ``application/json`` body;
- ``--stateless``: no sessions, every request stands alone;
- ``--legacy-sse``: the deprecated HTTP+SSE transport instead (MCP 2024-11-05): ``GET /sse`` opens the
  stream, whose ``endpoint`` event names ``/messages/?session_id=…`` to POST to. There is no ``/mcp``.

When ``HTTP_SERVER_TOKEN`` is set, every request must carry ``Authorization: Bearer <token>`` or gets 401,
so a test can tell that the gateway forwards its configured headers. Tools: ``greet(name)``,
``progress(steps)`` (one progress notification per step) and ``pid()``.
"""

from __future__ import annotations

import argparse
import os
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

PROGRESS_STEP_SECONDS = 0.3

server = MCPServer("yrden-interop-http", version="1.0.0")


@server.tool(description="Greet someone by name.")
def greet(name: str) -> str:
    return f"Hello over HTTP, {name}!"


@server.tool(description="Count to `steps`, reporting progress after each step.")
async def progress(steps: int, ctx: Context) -> str:
    for step in range(1, steps + 1):
        await anyio.sleep(PROGRESS_STEP_SECONDS)
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return f"counted to {steps}"


@server.tool(description="The process id of this server.")
def pid() -> int:
    return os.getpid()


class RequireBearer:
    """Answers 401 to any request without the expected bearer token."""

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != self.expected:
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"missing or wrong bearer token"})
            return
        await self.app(scope, receive, send)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--legacy-sse", action="store_true")
    parser.add_argument("--tls-cert", help="serve https with this certificate (PEM)")
    parser.add_argument("--tls-key", help="the certificate's key (PEM)")
    args = parser.parse_args()
    app: ASGIApp
    if args.legacy_sse:
        app = server.sse_app()
    else:
        app = server.streamable_http_app(json_response=args.json_response, stateless_http=args.stateless)
    if token := os.environ.get("HTTP_SERVER_TOKEN"):
        app = RequireBearer(app, token)
    print(f"http_server: pid {os.getpid()}, port {args.port}", file=sys.stderr, flush=True)
    uvicorn.run(
        app, host="127.0.0.1", port=args.port, log_level="warning", ssl_certfile=args.tls_cert, ssl_keyfile=args.tls_key
    )


if __name__ == "__main__":
    main()
