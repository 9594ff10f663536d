"""A handshake-era host on the official Python SDK 1.x (run from ``.venv-1x``) that calls one tool with a W3C
trace context in ``_meta`` (SEP-414), for test_telemetry.py.

``python traced_client_1x.py URL TOOL TRACEPARENT`` connects over Streamable HTTP, calls ``TOOL`` with
``{"text": "from 1.x"}`` and ``_meta.traceparent``, and prints one JSON object: the negotiated version, the session
id and the tool's text.
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


async def main(url: str, tool: str, traceparent: str) -> None:
    with anyio.fail_after(60):
        async with streamablehttp_client(url) as (read, write, session_id):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                result = await session.call_tool(tool, {"text": "from 1.x"}, meta={"traceparent": traceparent})
                text = "".join(getattr(c, "text", "") for c in result.content)
                print(json.dumps({"version": init.protocolVersion, "session": session_id(), "text": text}))


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:4])
