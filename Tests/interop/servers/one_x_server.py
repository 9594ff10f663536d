"""A stdio MCP server on the SDK 1.x (``.venv-1x``), as most servers in the wild still are: one tool, ``hi``.

Run it with ``.venv-1x/bin/python one_x_server.py [--exit-on-list]``. It knows nothing of 2026-07-28: it
answers the gateway's ``server/discover`` probe with -32602 and writes a long validation error to stderr for
it. With ``--exit-on-list`` it exits (status 3) when asked for its tools, right after the handshake: every
connection attempt fails after the era was agreed, as a server that crashes while starting does.
"""

import os
import sys

from mcp.server.fastmcp import FastMCP


class ExitingOnList(FastMCP):
    async def list_tools(self):  # registered by FastMCP's own constructor, so overriding it is enough
        os._exit(3)


server = (ExitingOnList if "--exit-on-list" in sys.argv[1:] else FastMCP)("one-x")


@server.tool(description="Say hi.")
def hi() -> str:
    return "hi"


if __name__ == "__main__":
    server.run()
