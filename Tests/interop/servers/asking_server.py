"""An upstream MCP server whose tools ask the client during the call, written with the official Python SDK.

Its tools take what they ask through the SDK's resolvers, which follow the era the client speaks: in the
handshake era (``initialize``) the server sends real requests mid-call; in 2026-07-28 it answers
``input_required`` and resumes when the call is retried with the answers. Tools:

- ``ask_name()``: form elicitation of a name, then a greeting (or what the user did instead);
- ``ask_model(prompt)``: sampling, answered with what the client's model said;
- ``list_roots()``: the client's roots, as URIs separated by spaces;
- ``ask_url()``: a URL elicitation (handshake era: a request with ``elicitationId`` ``auth-1``, then
  ``notifications/elicitation/complete`` once accepted), answered with what the user did;
- ``touch(uri)``: says the resource ``uri`` changed to whoever follows it (``resources/subscribe`` in the
  handshake era, a listen filter in 2026-07-28; resources ``note://pad`` and ``note://pad/line``);
- ``where(region, count)``: both arguments marked ``x-mcp-header`` (``Region``, ``Count``); answers with them
  and the ``Mcp-Param-*`` headers it received; ``bad_header(amount)``: marked on a ``number``, which makes
  the tool invalid for a 2026-07-28 HTTP client;
- ``roots_changes()``: how many ``notifications/roots/list_changed`` the server has received;
- ``log_lines()``: logs ``debug line``, ``info line`` and ``warning line`` (logger ``lines``) during the
  call, which the SDK sends only to a client that asked (a session's level, or a request's ``logLevel``);
- ``count(steps)``: one progress notification per step; ``hang(seconds, interval=0)``: sleeps (with
  progress every ``interval`` if given), noting whether it was cancelled; ``hangs()`` says
  ``started N cancelled N finished N``;
- ``add_tool(name)``: registers a tool and announces the change (the session's stream in the handshake
  era, listen streams in 2026-07-28); prompt ``greeting(name)``.

In 2026-07-28 ``ask_url`` answers ``input_required`` with a URL elicitation (without an ``elicitationId``,
which that era does not have) and, retried, says what the user did.

Run it as ``python asking_server.py [--modern-only]`` (stdio) or ``python asking_server.py --port P
[--modern-only]`` (Streamable HTTP). ``--modern-only`` makes it a server of 2026-07-28 that never learnt the
handshake: over HTTP a request without that era's ``MCP-Protocol-Version`` is refused with 400 and -32022
naming 2026-07-28, and there is no GET stream (405); over stdio ``initialize`` is refused with -32022 (the
SDK's modern loop, as ``sample_server.py --modern-only``).
"""

from __future__ import annotations

import json
import sys
import warnings
from typing import Annotated

import anyio
import uvicorn
from mcp.server.elicitation import ElicitationResult
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.server.runner import _serve_modern_stream  # pyright: ignore[reportPrivateUsage]
from mcp.server.stdio import stdio_server
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp_types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestURLParams,
    ElicitResult,
    EmptyResult,
    InputRequiredResult,
    ListRootsResult,
    NotificationParams,
    SamplingMessage,
    SubscribeRequestParams,
    TextContent,
    UnsubscribeRequestParams,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, Field

# Sampling and roots are deprecated in 2026-07-28; this server exists to exercise them.
warnings.simplefilter("ignore", DeprecationWarning)

server = MCPServer("yrden-interop-asking", version="1.0.0")


class Name(BaseModel):
    name: str


def name_question() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def model_question(prompt: str) -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=prompt))], max_tokens=64)


def roots_question() -> ListRoots:
    return ListRoots()


@server.tool(description="Ask the user for a name (form elicitation), then greet it.")
async def ask_name(answer: Annotated[ElicitationResult[Name], Resolve(name_question)]) -> str:
    return f"Hello, {answer.data.name}!" if answer.action == "accept" else f"no name ({answer.action})"


@server.tool(description="Ask the client's model to complete `prompt` (sampling).")
async def ask_model(prompt: str, answer: Annotated[CreateMessageResult, Resolve(model_question)]) -> str:
    return f"the model said: {answer.content.text}"


@server.tool(description="The client's roots, as URIs separated by spaces.")
async def list_roots(answer: Annotated[ListRootsResult, Resolve(roots_question)]) -> str:
    return " ".join(str(root.uri) for root in answer.roots)


@server.tool(description="Log a debug, an info and a warning line during the call.")
async def log_lines(ctx: Context) -> str:
    for level in ("debug", "info", "warning"):
        await ctx.log(level, f"{level} line", logger_name="lines")
    return "logged"


@server.tool(description="Ask the user to visit a URL (URL elicitation), then say the visit is complete.")
async def ask_url(ctx: Context) -> str | InputRequiredResult:
    if ctx.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
        # 2026-07-28: ask through the result, and read the answer from the retry.
        answer = (ctx.input_responses or {}).get("visit")
        if isinstance(answer, ElicitResult):
            return f"url {answer.action}"
        params = ElicitRequestURLParams(message="Sign in to the example service", url="https://example.com/auth")
        return InputRequiredResult(input_requests={"visit": ElicitRequest(params=params)})
    answer = await ctx.elicit_url("Sign in to the example service", "https://example.com/auth", "auth-1")
    if answer.action == "accept":
        await ctx.session.send_elicit_complete("auth-1")
    return f"url {answer.action}"


@server.tool(description="Count to `steps`, reporting progress after each step.")
async def count(steps: int, ctx: Context) -> str:
    for step in range(1, steps + 1):
        await anyio.sleep(0.05)
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return f"counted to {steps}"


HANGS = {"started": 0, "cancelled": 0, "finished": 0}


@server.tool(description="Sleep for `seconds` (progress every `interval` if given), noting whether it was cancelled.")
async def hang(seconds: float, ctx: Context, interval: float = 0) -> str:
    HANGS["started"] += 1
    try:
        if interval > 0:
            for tick in range(1, int(seconds / interval) + 1):
                await anyio.sleep(interval)
                await ctx.report_progress(tick)
        else:
            await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        HANGS["cancelled"] += 1
        raise
    HANGS["finished"] += 1
    return "woke up"


@server.tool(description="How many `hang` calls started, were cancelled, and finished.")
def hangs() -> str:
    return " ".join(f"{key} {value}" for key, value in HANGS.items())


@server.tool(description="Register a new tool called `name`, then announce that the tool list changed.")
async def add_tool(name: str, ctx: Context) -> str:
    def added() -> str:
        return f"{name} was added at runtime"

    server.add_tool(added, name=name, description=f"Added at runtime by add_tool({name!r}).")
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        await ctx.session.send_tool_list_changed()
    else:
        await ctx.notify_tools_changed()
    return f"added {name}"


@server.prompt(description="A greeting for `name`.")
def greeting(name: str) -> list[UserMessage]:
    return [UserMessage(f"Say hello to {name}.")]


SUBSCRIBED: set[str] = set()


@server.resource("note://pad", name="pad", description="A note that `touch` says changed.", mime_type="text/plain")
def pad() -> str:
    return "pad"


@server.resource("note://pad/line", name="line", description="A part of the pad.", mime_type="text/plain")
def pad_line() -> str:
    return "line"


async def on_subscribe(ctx, params: SubscribeRequestParams) -> EmptyResult:
    SUBSCRIBED.add(str(params.uri))
    return EmptyResult()


async def on_unsubscribe(ctx, params: UnsubscribeRequestParams) -> EmptyResult:
    SUBSCRIBED.discard(str(params.uri))
    return EmptyResult()


lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, on_subscribe)
lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, on_unsubscribe)

ROOTS_CHANGES = [0]


async def on_roots_changed(ctx, params: NotificationParams) -> None:
    ROOTS_CHANGES[0] += 1


lowlevel.add_notification_handler("notifications/roots/list_changed", NotificationParams, on_roots_changed)


@server.tool(description="How many times the client said its roots changed.")
def roots_changes() -> str:
    return str(ROOTS_CHANGES[0])


@server.tool(description="Say that the resource `uri` changed to whoever follows it; what was subscribed.")
async def touch(uri: str, ctx: Context) -> str:
    if ctx.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
        # 2026-07-28: to the listen streams whose filter names the resource.
        await ctx.notify_resource_updated(uri)
        return "notified"
    if uri in SUBSCRIBED:
        await ctx.session.send_resource_updated(uri)
    return " ".join(sorted(SUBSCRIBED)) or "nothing"


@server.tool(description="Answer with the region and count, and the Mcp-Param headers that came with them.")
async def where(
    region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
    count: Annotated[int, Field(json_schema_extra={"x-mcp-header": "Count"})],
    ctx: Context,
) -> str:
    headers = {k.lower(): v for k, v in (ctx.headers or {}).items()}
    return f"{region} {count} | {headers.get('mcp-param-region')} {headers.get('mcp-param-count')}"


@server.tool(description="A tool whose x-mcp-header is on a number, which is not allowed.")
async def bad_header(amount: float) -> str:
    return f"{amount}"


# The SDK refuses to declare such a tool; a server of another make may serve it anyway.
server._tool_manager._tools["bad_header"].parameters["properties"]["amount"]["x-mcp-header"] = "Amount"  # pyright: ignore[reportPrivateUsage]


MODERN_VERSION = "2026-07-28"


def modern_only(app):
    """The ASGI app, refusing everything of the handshake era as a modern-only server does."""

    async def guarded(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if scope["method"] == "GET":
            return await respond(send, 405, b"")
        if scope["method"] == "POST" and headers.get("mcp-protocol-version") != MODERN_VERSION:
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            try:
                request_id = json.loads(body).get("id")
            except (ValueError, AttributeError):
                request_id = None
            error = {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": [MODERN_VERSION]}}
            return await respond(send, 400, json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode())
        return await app(scope, receive, send)

    return guarded


async def respond(send, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    if "--port" in sys.argv:
        port = int(sys.argv[sys.argv.index("--port") + 1])
        app = server.streamable_http_app()
        if "--modern-only" in sys.argv:
            app = modern_only(app)
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    elif "--modern-only" in sys.argv:
        anyio.run(serve_modern_stdio)
    else:
        anyio.run(run_stdio)


async def run_stdio() -> None:
    # Declare listChanged for handshake-era clients (MCPServer.run_stdio_async does not).
    options = lowlevel.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, options)


async def serve_modern_stdio() -> None:
    async with stdio_server() as (read_stream, write_stream), lowlevel.lifespan(lowlevel) as state:
        await _serve_modern_stream(lowlevel, read_stream, write_stream, lifespan_state=state, raise_exceptions=False)


if __name__ == "__main__":
    main()
