"""A host on the official Python SDK 1.x, run from ``.venv-1x``, that speaks MCP over a WebSocket (its
``websocket_client``, subprotocol ``mcp``): it lists and calls tools, answers a form elicitation with the name
Ada, has a tool added upstream and waits for the list change, then prints what it saw as one JSON object.

``python client_1x_websocket.py WS_URL TOOL [ASK_TOOL] [ADD_TOOL]`` calls TOOL with ``{"message": "over ws"}``,
ASK_TOOL with no arguments (empty: skip) and ADD_TOOL with ``{"name": "fresh"}`` (empty: skip).
"""

from __future__ import annotations

import asyncio
import json
import sys

import anyio
import mcp.types as types
from mcp import ClientSession
from mcp.client.websocket import websocket_client


async def main(url: str, tool: str, ask_tool: str, add_tool: str) -> None:
    heard: list[str] = []
    list_changed = anyio.Event()

    async def on_message(message) -> None:
        if isinstance(message, types.ServerNotification):
            heard.append(message.root.method)
            if message.root.method == "notifications/tools/list_changed":
                list_changed.set()

    async def on_elicit(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async with websocket_client(url) as (read, write):
        async with ClientSession(read, write, message_handler=on_message, elicitation_callback=on_elicit) as session:
            init = await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            called = await session.call_tool(tool, {"message": "over ws"})
            seen = {
                "protocolVersion": init.protocolVersion,
                "tools": tools,
                "called": "".join(getattr(part, "text", "") for part in called.content),
            }
            if ask_tool:
                asked = await session.call_tool(ask_tool, {})
                seen["asked"] = "".join(getattr(part, "text", "") for part in asked.content)
            if add_tool:
                await session.call_tool(add_tool, {"name": "fresh"})
                with anyio.fail_after(10):
                    await list_changed.wait()
                seen["heard"] = heard
                seen["after"] = sorted(t.name for t in (await session.list_tools()).tools)
    print(json.dumps(seen))


if __name__ == "__main__":
    args = sys.argv[1:] + ["", ""]
    asyncio.run(main(args[0], args[1], args[2], args[3]))
