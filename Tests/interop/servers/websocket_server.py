"""An upstream MCP server over WebSocket for the interop tests: the official Python SDK 1.x's ``websocket_server``.

The 2.x SDK the other tests use has no WebSocket transport; 1.x ships one (client and server), so this runs
under ``.venv-1x`` (``mcp==1.26.0`` with ``websockets``, pinned in ``requirements-1x.txt``). Run it as
``python websocket_server.py --port P``: it serves MCP at ``ws://127.0.0.1:P/ws`` with the ``mcp``
subprotocol. When ``WS_SERVER_TOKEN`` is set, an upgrade without ``Authorization: Bearer <token>`` gets 403.

With ``--tls-cert FILE --tls-key FILE`` it serves ``wss://`` instead.

With ``--oauth-issuer URL`` it is an OAuth-protected resource instead: RFC 9728 metadata at
``/.well-known/oauth-protected-resource/ws`` names ``http://127.0.0.1:P/ws`` as the resource and that issuer (the
interop tests' ``oauth_server.py``, started with ``--extra-resource`` for it) as its authorization server; an
upgrade must carry a bearer token the issuer's ``/control/introspect`` calls active and bound to this resource,
else it is answered 401 with ``WWW-Authenticate: Bearer resource_metadata="…"``. ``GET /control/upgrades``
counts the upgrades by outcome and lists the client ids accepted.

Tools: ``greet(name)``, ``pid()``, and ``flood(count)``, which sends ``count`` log notifications as fast as it
can before it answers.

With ``--otlp URL`` it emits OpenTelemetry spans to ``URL/v1/traces`` (service ``traced-ws-upstream``), for the
tracing tests: ``traced_echo(text)`` opens a SERVER span ``tools/call traced_echo`` parented on the W3C trace
context in the request's ``_meta`` (the SDK 1.x does not trace by itself) and answers the ``_meta.traceparent``
and ``_meta.tracestate`` it saw, as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter

import httpx
import uvicorn
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.websocket import websocket_server
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
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


TRACER = None
"""The OpenTelemetry tracer when ``--otlp`` is given."""


@server.tool(description="Answer `text` with the trace context of `_meta`, in a span parented on it.")
def traced_echo(text: str, ctx: Context) -> str:
    meta = ctx.request_context.meta
    seen = {k: v for k, v in (meta.model_dump() if meta else {}).items() if k in ("traceparent", "tracestate")}
    if TRACER is not None:
        from opentelemetry.trace import SpanKind
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        parent = TraceContextTextMapPropagator().extract(seen)
        with TRACER.start_as_current_span("tools/call traced_echo", context=parent, kind=SpanKind.SERVER):
            pass
    return json.dumps({"text": text, "meta": seen or None})


def export_to(otlp: str) -> None:
    """Spans to ``otlp``'s ``/v1/traces``, each exported as it ends."""
    global TRACER
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "traced-ws-upstream"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{otlp}/v1/traces", timeout=5)))
    trace.set_tracer_provider(provider)
    TRACER = trace.get_tracer("yrden-interop-websocket")


OAUTH: dict[str, str] = {}
"""``issuer`` and ``resource`` when the server is OAuth-protected (``--oauth-issuer``)."""
UPGRADES: Counter[str] = Counter()
CLIENTS: list[str] = []


async def refused_token(websocket: WebSocket) -> str | None:
    """Why the upgrade's bearer token is not good for this resource, or None when it is."""
    authorization = websocket.headers.get("authorization", "")
    if not authorization.startswith("Bearer "):
        return "missing"
    async with httpx.AsyncClient(timeout=5) as client:
        answer = await client.post(
            OAUTH["issuer"] + "/control/introspect", json={"token": authorization.removeprefix("Bearer ")}
        )
    verdict = answer.json()
    if not verdict.get("active"):
        return verdict.get("status", "inactive")
    if verdict.get("resource", "").rstrip("/") != OAUTH["resource"]:
        return "wrong_resource"
    CLIENTS.append(verdict["client_id"])
    return None


async def endpoint(websocket: WebSocket) -> None:
    token = os.environ.get("WS_SERVER_TOKEN")
    if token and websocket.headers.get("authorization") != f"Bearer {token}":
        await websocket.close(code=1008)  # before the upgrade is accepted: uvicorn answers 403
        return
    if OAUTH:
        if reason := await refused_token(websocket):
            UPGRADES[reason] += 1
            challenge = f'Bearer error="invalid_token", resource_metadata="{OAUTH["metadata"]}"'
            await websocket.send_denial_response(
                Response(status_code=401, headers={"WWW-Authenticate": challenge}, content=reason)
            )
            return
        UPGRADES["accepted"] += 1
    async with websocket_server(websocket.scope, websocket.receive, websocket.send) as (read_stream, write_stream):
        mcp = server._mcp_server
        await mcp.run(read_stream, write_stream, mcp.create_initialization_options())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--oauth-issuer", help="the authorization server whose tokens the upgrade must carry")
    parser.add_argument("--tls-cert", help="serve wss:// with this PEM certificate chain (and --tls-key)")
    parser.add_argument("--tls-key", help="the certificate's PEM private key")
    parser.add_argument("--otlp", help="the OTLP/HTTP endpoint its spans go to (its /v1/traces); none: no spans")
    args = parser.parse_args()
    if args.otlp:
        export_to(args.otlp)
    routes: list[Route | WebSocketRoute] = [WebSocketRoute("/ws", endpoint)]
    if args.oauth_issuer:
        base = f"http://127.0.0.1:{args.port}"
        OAUTH.update(
            issuer=args.oauth_issuer.rstrip("/"),
            resource=f"{base}/ws",
            metadata=f"{base}/.well-known/oauth-protected-resource/ws",
        )

        async def metadata(request: Request) -> Response:
            return JSONResponse(
                {
                    "resource": OAUTH["resource"],
                    "authorization_servers": [OAUTH["issuer"]],
                    "scopes_supported": ["mcp:read", "mcp:write"],
                }
            )

        async def upgrades(request: Request) -> Response:
            return JSONResponse({"upgrades": dict(UPGRADES), "clients": CLIENTS})

        routes += [
            Route("/.well-known/oauth-protected-resource/ws", metadata, methods=["GET"]),
            Route("/control/upgrades", upgrades, methods=["GET"]),
        ]
    app = Starlette(routes=routes)
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        ws="websockets-sansio",
        ssl_certfile=args.tls_cert,
        ssl_keyfile=args.tls_key,
    )


if __name__ == "__main__":
    main()
