"""An upstream that takes each caller's own credential, for the interop tests: an RFC 8693 token-exchange
endpoint and an MCP server (Streamable HTTP, the official Python SDK) in one process.

Run it as ``python exchange_server.py --subjects alice=TOKEN_A,bob=TOKEN_B [--ttl S] [--client gw:secret]``.
When ready it prints its base URL (``http://127.0.0.1:PORT``) as one line on stdout.

- ``POST /token``: ``grant_type=urn:ietf:params:oauth:grant-type:token-exchange`` with ``subject_token`` one of
  the ``--subjects`` tokens (and ``subject_token_type`` access_token) answers a fresh ``xchg_<user>_<n>`` living
  ``--ttl`` seconds (default 300); an unknown subject token is ``invalid_grant``. With ``--client ID:SECRET``
  the request must authenticate as that client (HTTP Basic).
- ``/mcp``: anyone may connect and list (the gateway's connection goes with no caller's credential); the tool
  ``whoami()`` answers the user whose exchanged token the call carried, or fails without one.
- ``POST /control/exchange-delay`` ``{"seconds"}``: each exchange answers that much later (0: at once).
- ``GET /control/stats``: ``exchanges`` (per user), ``refused_exchanges``, ``last_exchange`` (its fields, the
  subject token left out), ``calls`` (for each ``tools/call`` as the MCP server saw it: the kind of
  ``Authorization`` it carried: ``xchg:<user>``, ``raw:<user>`` for a caller's own token forwarded as it is,
  ``none`` or ``other``), and ``authorization_by_method`` (the same kinds, per JSON-RPC method).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import secrets
import socket
import sys
import time
from collections import Counter
from typing import Any
from urllib.parse import parse_qsl

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from starlette.types import ASGIApp, Receive, Scope, Send

HOST = "127.0.0.1"
GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"


class State:
    def __init__(self, subjects: dict[str, str], ttl: int, client: tuple[str, str] | None):
        self.subjects = subjects  # caller token -> user
        self.ttl = ttl
        self.client = client
        self.issued: dict[str, tuple[str, float]] = {}  # exchanged token -> (user, expiry)
        self.exchanges: Counter[str] = Counter()
        self.refused = 0
        self.last_exchange: dict[str, str] | None = None
        self.calls: list[str] = []
        self.by_method: dict[str, Counter[str]] = {}
        self.exchange_delay = 0.0

    def kind(self, header: str | None) -> str:
        if not header:
            return "none"
        token = header.removeprefix("Bearer ").strip()
        if token in self.issued and self.issued[token][1] > time.time():
            return f"xchg:{self.issued[token][0]}"
        if token in self.subjects:
            return f"raw:{self.subjects[token]}"
        return "other"


def build(state: State) -> ASGIApp:
    server = MCPServer("yrden-interop-exchange", version="1.0.0", log_level="WARNING")

    @server.tool(description="The user whose exchanged token this call carried.")
    def whoami(ctx: Context) -> str:
        kind = state.kind((ctx.headers or {}).get("authorization"))
        state.calls.append(kind)
        if not kind.startswith("xchg:"):
            raise ToolError(f"this call carried no exchanged token ({kind})")
        return kind.removeprefix("xchg:")

    mcp_app = server.streamable_http_app()

    async def respond(send: Send, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": data})

    async def read_body(receive: Receive) -> bytes:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def token(scope: Scope, receive: Receive, send: Send) -> None:
        fields = dict(parse_qsl((await read_body(receive)).decode()))
        headers = dict(scope["headers"])
        if state.client is not None:
            expected = "Basic " + base64.b64encode(f"{state.client[0]}:{state.client[1]}".encode()).decode()
            if headers.get(b"authorization", b"").decode() != expected:
                state.refused += 1
                await respond(send, 401, {"error": "invalid_client"})
                return
        user = state.subjects.get(fields.get("subject_token", ""))
        if fields.get("grant_type") != GRANT or fields.get("subject_token_type") != ACCESS_TOKEN_TYPE or not user:
            state.refused += 1
            await respond(send, 400, {"error": "invalid_grant", "error_description": "unknown subject token"})
            return
        if state.exchange_delay:
            await anyio.sleep(state.exchange_delay)
        state.exchanges[user] += 1
        state.last_exchange = {k: v for k, v in fields.items() if k != "subject_token"}
        issued = f"xchg_{user}_{state.exchanges[user]}_{secrets.token_urlsafe(8)}"
        state.issued[issued] = (user, time.time() + state.ttl)
        await respond(
            send,
            200,
            {
                "access_token": issued,
                "issued_token_type": ACCESS_TOKEN_TYPE,
                "token_type": "Bearer",
                "expires_in": state.ttl,
            },
        )

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/token" and scope["method"] == "POST":
            await token(scope, receive, send)
        elif scope["type"] == "http" and scope["path"] == "/control/exchange-delay" and scope["method"] == "POST":
            state.exchange_delay = float(json.loads(await read_body(receive) or b"{}").get("seconds", 0))
            await respond(send, 200, {"seconds": state.exchange_delay})
        elif scope["type"] == "http" and scope["path"] == "/control/stats":
            await respond(
                send,
                200,
                {
                    "exchanges": dict(state.exchanges),
                    "refused_exchanges": state.refused,
                    "last_exchange": state.last_exchange,
                    "calls": state.calls,
                    "authorization_by_method": {m: dict(c) for m, c in state.by_method.items()},
                },
            )
        elif scope["type"] == "http" and scope["path"] == "/mcp" and scope["method"] == "POST":
            body = await read_body(receive)
            try:
                method = json.loads(body).get("method", "(response)")
            except (ValueError, AttributeError):
                method = "(batch or invalid)"
            kind = state.kind(dict(scope["headers"]).get(b"authorization", b"").decode() or None)
            state.by_method.setdefault(method, Counter())[kind] += 1
            replayed = False

            async def replay() -> dict[str, Any]:
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            await mcp_app(scope, replay, send)
        else:
            await mcp_app(scope, receive, send)

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--subjects", required=True, help="user=token,user=token")
    parser.add_argument("--ttl", type=int, default=300)
    parser.add_argument("--client", default=None, help="ID:SECRET the exchange must authenticate as")
    args = parser.parse_args()
    subjects = {token: user for user, token in (pair.split("=", 1) for pair in args.subjects.split(","))}
    client = tuple(args.client.split(":", 1)) if args.client else None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, args.port))
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(build(State(subjects, args.ttl, client)), log_level="warning", lifespan="on")  # type: ignore[arg-type]
    )

    async def announce_when_ready() -> None:
        while not server.started:
            if server.should_exit:
                return
            await anyio.sleep(0.02)
        print(f"exchange_server: pid {os.getpid()}", file=sys.stderr, flush=True)
        print(f"http://{HOST}:{port}", flush=True)

    async def serve() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(announce_when_ready)
            await server.serve(sockets=[sock])

    anyio.run(serve)


if __name__ == "__main__":
    main()
