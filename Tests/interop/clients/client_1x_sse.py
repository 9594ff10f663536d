"""A host on the official Python SDK 1.x, run from ``.venv-1x``, that speaks only the deprecated HTTP+SSE
transport (MCP 2024-11-05): it connects to the gateway's ``sse`` URL, lists and calls tools, reads a resource,
has a tool added upstream and waits to hear of it, then prints what it saw as one JSON object.

``python client_1x_sse.py SSE_URL TOOL ADD_TOOL`` calls TOOL with ``{"message": "over sse"}`` and ADD_TOOL with
``{"name": "fresh"}`` (empty: skip).
"""

from __future__ import annotations

import asyncio
import json
import sys

import mcp.types as types
from mcp import ClientSession
from mcp.client.sse import sse_client


async def main(url: str, tool: str, add_tool: str) -> None:
    heard: list[str] = []

    async def on_message(message) -> None:
        if isinstance(message, types.ServerNotification):
            heard.append(message.root.method)

    async with sse_client(url) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            called = await session.call_tool(tool, {"message": "over sse"})
            seen = {
                "protocolVersion": init.protocolVersion,
                "tools": tools,
                "called": "".join(getattr(part, "text", "") for part in called.content),
            }
            if add_tool:
                await session.call_tool(add_tool, {"name": "fresh"})
                for _ in range(100):
                    if "notifications/tools/list_changed" in heard:
                        break
                    await asyncio.sleep(0.05)
                seen["heard"] = heard
                seen["after"] = sorted(t.name for t in (await session.list_tools()).tools)
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""))
