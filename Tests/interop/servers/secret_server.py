"""An upstream with secrets that no other server's MCP App page may read, written with the official SDK.

Runs over stdio. It lists resource ``vault://secret/listed`` (text ``$SECRET_LISTED``) and template
``vault://secret/{name}`` (text ``$SECRET_UNLISTED`` and the name), so ``vault://secret/unlisted`` is a resource
it has without listing it.
"""

from __future__ import annotations

import os

import anyio
from mcp.server.mcpserver import MCPServer

LISTED = os.environ.get("SECRET_LISTED", "listed-secret")
UNLISTED = os.environ.get("SECRET_UNLISTED", "unlisted-secret")

server = MCPServer("yrden-interop-secrets", version="1.0.0")


@server.resource("vault://secret/listed", name="listed", mime_type="text/plain")
def listed() -> str:
    return LISTED


@server.resource("vault://secret/{name}", name="unlisted", mime_type="text/plain")
def unlisted(name: str) -> str:
    return f"{UNLISTED} {name}"


if __name__ == "__main__":
    anyio.run(server.run_stdio_async)
