"""A handshake-era host on the official Python SDK 1.x, run from ``.venv-1x``, that uses every feature of an
upstream called ``asking`` (``servers/asking_server.py``) through the gateway and prints what it saw.

``python client_1x_cells.py URL`` connects over Streamable HTTP and prints one JSON object: the negotiated
version and session, the catalog (a tool, a resource, a prompt), what the elicitation (form and URL),
sampling and roots calls answered, the URL elicitations it was asked and the completion notices it heard,
the log messages at level ``info``, the progress of a call, a tool list change and a resource update heard
on its GET stream, and what the upstream said of a call this host cancelled with ``notifications/cancelled``
(the 1.x SDK has no cancellation of its own; a host sends the notification).
"""

from __future__ import annotations

import asyncio
import json
import sys

import anyio
import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

PAD = "note://pad"


async def main(url: str) -> None:
    logs: list[dict] = []
    asked_urls: list[dict] = []
    heard: list[dict] = []

    async def on_elicit(context, params):
        if getattr(params, "mode", None) == "url":
            asked_urls.append({"url": params.url, "elicitationId": params.elicitationId})
            return types.ElicitResult(action="accept")
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

    async def on_message(message) -> None:
        if isinstance(message, types.ServerNotification):
            root = message.root
            entry = {"method": root.method}
            if isinstance(root, types.ResourceUpdatedNotification):
                entry["uri"] = str(root.params.uri)
            if isinstance(root, types.ElicitCompleteNotification):
                entry["elicitationId"] = root.params.elicitationId
            heard.append(entry)

    def text(result) -> str:
        parts = getattr(result, "content", None) or getattr(result, "contents", None) or []
        return "".join(getattr(part, "text", "") for part in parts)

    async def wait_for(predicate, seconds: float = 10.0) -> bool:
        for _ in range(int(seconds / 0.1)):
            if predicate():
                return True
            await asyncio.sleep(0.1)
        return False

    async with streamablehttp_client(url) as (read, write, get_session_id):
        async with ClientSession(
            read,
            write,
            elicitation_callback=on_elicit,
            sampling_callback=on_sample,
            list_roots_callback=on_roots,
            logging_callback=on_log,
            message_handler=on_message,
        ) as session:
            init = await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            progress: list[float] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append(value)

            seen = {
                "protocolVersion": init.protocolVersion,
                "session": get_session_id(),
                "tools": tools,
                "where": text(await session.call_tool("asking__where", {"region": "eu", "count": 3})),
                "pad": text(await session.read_resource(PAD)),
                "prompt": (await session.get_prompt("asking__greeting", {"name": "Ada"})).messages[0].content.text,
                "ask_name": text(await session.call_tool("asking__ask_name", {})),
                "ask_model": text(await session.call_tool("asking__ask_model", {"prompt": "six times seven"})),
                "list_roots": text(await session.call_tool("asking__list_roots", {})),
                "ask_url": text(await session.call_tool("asking__ask_url", {})),
                "count": text(await session.call_tool("asking__count", {"steps": 3}, progress_callback=on_progress)),
            }
            seen["progress"] = progress
            seen["asked_urls"] = asked_urls

            await session.set_logging_level("info")
            await session.call_tool("asking__log_lines", {})
            await wait_for(lambda: len(logs) >= 2, 5)
            seen["logs"] = logs

            # A tool list change, heard on the GET stream; the new tool answers.
            await session.call_tool("asking__add_tool", {"name": "one_x_fresh"})
            await wait_for(lambda: any(h["method"] == "notifications/tools/list_changed" for h in heard))
            for _ in range(50):
                if "asking__one_x_fresh" in {t.name for t in (await session.list_tools()).tools}:
                    break
                await asyncio.sleep(0.2)
            seen["fresh"] = text(await session.call_tool("asking__one_x_fresh", {}))

            # A resource update, heard once subscribed (a 2026-07-28 upstream's listen stream may still be opening).
            await session.subscribe_resource(PAD)
            for _ in range(30):
                await session.call_tool("asking__touch", {"uri": PAD})
                if await wait_for(lambda: any(h.get("uri") == PAD for h in heard), 0.5):
                    break
            await session.unsubscribe_resource(PAD)

            # A cancelled call: the upstream must see it cancelled.
            def hangs(result) -> dict[str, int]:
                words = text(result).split()
                return {words[i]: int(words[i + 1]) for i in range(0, len(words), 2)}

            before = hangs(await session.call_tool("asking__hangs", {}))
            request_ids: list[int] = []

            async def hang() -> None:
                request_ids.append(session._request_id)  # the id call_tool is about to take
                try:
                    await session.call_tool("asking__hang", {"seconds": 60})
                except Exception:
                    pass  # the gateway may answer the cancelled request with an error

            async with anyio.create_task_group() as tg:
                tg.start_soon(hang)
                for _ in range(100):
                    if hangs(await session.call_tool("asking__hangs", {}))["started"] > before["started"]:
                        break
                    await asyncio.sleep(0.1)
                await session.send_notification(
                    types.ClientNotification(
                        types.CancelledNotification(
                            params=types.CancelledNotificationParams(requestId=request_ids[0], reason="stop")
                        )
                    )
                )
                after = before
                for _ in range(100):
                    after = hangs(await session.call_tool("asking__hangs", {}))
                    if after["cancelled"] > before["cancelled"]:
                        break
                    await asyncio.sleep(0.1)
                tg.cancel_scope.cancel()
            seen["hangs_before"] = before
            seen["hangs_after"] = after
            seen["heard"] = heard
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
