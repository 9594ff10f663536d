"""An upstream MCP server whose tools ask the client during the call, written with the official Python SDK.

Handshake era only (``initialize``): in that era a server sends the client real requests mid-call, which the
gateway relays to the client whose call it is. Tools:

- ``ask_name()``: form elicitation of a name, then a greeting;
- ``ask_model(prompt)``: sampling, answered with what the client's model said;
- ``list_roots()``: the client's roots, as URIs separated by spaces.

Run it as ``python asking_server.py`` (stdio) or ``python asking_server.py --port P`` (Streamable HTTP).
"""

from __future__ import annotations

import sys
import warnings

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import SamplingMessage, TextContent
from pydantic import BaseModel

# Sampling and roots are deprecated in 2026-07-28; this server exists to exercise them.
warnings.simplefilter("ignore", DeprecationWarning)

server = MCPServer("yrden-interop-asking", version="1.0.0")


class Name(BaseModel):
    name: str


@server.tool(description="Ask the user for a name (form elicitation), then greet it.")
async def ask_name(ctx: Context) -> str:
    answer = await ctx.elicit("What is your name?", Name)
    return f"Hello, {answer.data.name}!" if answer.action == "accept" and answer.data else f"no name ({answer.action})"


@server.tool(description="Ask the client's model to complete `prompt` (sampling).")
async def ask_model(prompt: str, ctx: Context) -> str:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
    answer = await ctx.session.create_message([message], max_tokens=64, related_request_id=ctx.request_id)
    return f"the model said: {answer.content.text}"


@server.tool(description="The client's roots, as URIs separated by spaces.")
async def list_roots(ctx: Context) -> str:
    answer = await ctx.session.list_roots()
    return " ".join(str(root.uri) for root in answer.roots)


def main() -> None:
    if "--port" in sys.argv:
        port = int(sys.argv[sys.argv.index("--port") + 1])
        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")
    else:
        anyio.run(server.run_stdio_async)


if __name__ == "__main__":
    main()
