"""A handshake-era host built on the official Python SDK 1.x, run from its own venv (``.venv-1x``).

``python client_1x.py URL`` connects to the gateway at URL over Streamable HTTP, answers elicitation,
sampling and roots requests, and prints one JSON object of what it saw: the negotiated version, the tools,
each call's text, a resource, a prompt, and the log messages at level ``info``.
"""

from __future__ import annotations

import asyncio
import json
import sys

import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def main(url: str) -> None:
    logs: list[dict] = []

    async def on_elicit(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async def on_sample(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked = params.messages[0].content.text
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=f"{asked} is 42"), model="one-x"
        )

    async def on_roots(context) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///work/one-x")])

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append({"level": params.level, "logger": params.logger, "data": params.data})

    def text(result) -> str:
        parts = getattr(result, "content", None) or getattr(result, "contents", None) or []
        return "".join(getattr(part, "text", "") for part in parts)

    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(
            read,
            write,
            elicitation_callback=on_elicit,
            sampling_callback=on_sample,
            list_roots_callback=on_roots,
            logging_callback=on_log,
        ) as session:
            init = await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            seen = {
                "protocolVersion": init.protocolVersion,
                "tools": tools,
                "greet": text(await session.call_tool("sample__greet", {"name": "1.x"})),
                "ask_name": text(await session.call_tool("asking__ask_name", {})),
                "ask_model": text(await session.call_tool("asking__ask_model", {"prompt": "six times seven"})),
                "list_roots": text(await session.call_tool("asking__list_roots", {})),
                "readme": text(await session.read_resource("sample://readme")),
                "prompt": (await session.get_prompt("sample__summarize", {"text": "abc"})).messages[0].content.text,
            }
            await session.set_logging_level("info")
            await session.call_tool("asking__log_lines", {})
            for _ in range(50):
                if len(logs) >= 2:
                    break
                await asyncio.sleep(0.1)
            seen["logs"] = logs
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
