"""A small upstream MCP server for the interop tests, written with the official Python SDK.

Runs over stdio and answers both protocol eras (the SDK's dual-era loop lets the
client's first request decide). What it offers:

- tools: ``greet(name)``, ``progress(steps)`` (reports one progress notification
  per step), ``add_tool(name)`` (registers a new tool at runtime and announces
  ``notifications/tools/list_changed``), ``pid()`` (the process id, to tell a
  restarted process from the old one);
- resource ``sample://readme`` (text) and template ``sample://items/{id}``;
- prompt ``summarize(text)``.

Run it as ``python sample_server.py [--modern-only] [--list-ttl MS]``. With ``--modern-only`` it serves the
2026-07-28 era alone, as a server of that era that never learnt the handshake does: ``initialize`` is refused
with -32022 naming 2026-07-28 (the SDK's own modern loop, entered directly instead of through its dual-era one).
``--list-ttl MS`` marks its 2026-07-28 ``tools/list`` results fresh for MS milliseconds and public.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.caching import CacheHint
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.server.runner import _serve_modern_stream  # pyright: ignore[reportPrivateUsage]
from mcp.server.stdio import stdio_server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

README_TEXT = "Sample server for the Yrden interop tests.\n"
PROGRESS_STEP_SECONDS = 0.1

server = MCPServer("yrden-interop-sample", version="1.0.0")


@server.tool(description="Greet someone by name.")
def greet(name: str) -> str:
    return f"Hello, {name}!"


@server.tool(description="Count to `steps`, reporting progress after each step.")
async def progress(steps: int, ctx: Context) -> str:
    for step in range(1, steps + 1):
        await anyio.sleep(PROGRESS_STEP_SECONDS)
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return f"counted to {steps}"


@server.tool(description="The process id of this server.")
def pid() -> int:
    return os.getpid()


@server.tool(description="Register a new tool called `name`, then announce that the tool list changed.")
async def add_tool(name: str, ctx: Context) -> str:
    def added() -> str:
        return f"{name} was added at runtime"

    server.add_tool(added, name=name, description=f"Added at runtime by add_tool({name!r}).")
    # Handshake-era clients hear about it on the session; 2026-07-28 clients
    # through their subscriptions/listen stream.
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        await ctx.session.send_tool_list_changed()
    await ctx.notify_tools_changed()
    return f"added {name}"


@server.resource("sample://readme", name="readme", description="What this server is.", mime_type="text/plain")
def readme() -> str:
    return README_TEXT


@server.resource("sample://items/{id}", name="item", description="One item by id.", mime_type="text/plain")
def item(id: str) -> str:
    return f"item {id}"


@server.prompt(description="Ask for a summary of a text.")
def summarize(text: str) -> list[UserMessage]:
    return [UserMessage(f"Summarize this text:\n\n{text}")]


async def main() -> None:
    print(f"sample_server: started, pid {os.getpid()}", file=sys.stderr, flush=True)
    lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    arguments = sys.argv[1:]
    if "--list-ttl" in arguments:
        ttl_ms = int(arguments[arguments.index("--list-ttl") + 1])
        lowlevel.cache_hints["tools/list"] = CacheHint(ttl_ms=ttl_ms, scope="public")
    if "--modern-only" in sys.argv[1:]:
        async with stdio_server() as (read_stream, write_stream), lowlevel.lifespan(lowlevel) as state:
            await _serve_modern_stream(lowlevel, read_stream, write_stream, lifespan_state=state, raise_exceptions=False)
        return
    # Declare listChanged for handshake-era clients (MCPServer.run_stdio_async does not).
    options = lowlevel.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, options)


if __name__ == "__main__":
    anyio.run(main)
