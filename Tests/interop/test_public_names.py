"""Public names: every tool name a host sees is at most 64 characters of ``A-Z a-z 0-9 _ -``.

A server's tool whose qualified name would break that rule (too long, a dot, a space) is served under a
readable stem plus a stable hash; the admin API shows the mapping, and a call by the shortened name reaches the
server's own tool. The official SDK client against ``servers/sample_server.py``, whose ``add_tool`` registers a
tool by any name at runtime.
"""

from __future__ import annotations

import re

import anyio
import httpx2

from harness import MODES, PYTHON, SAMPLE_SERVER, mcp_session, text_of

HOST_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
LONG = "repository.search_issues_and_pull_requests_across_every_organisation_you_belong_to"


async def test_long_and_dotted_names_are_shortened_and_still_reach_their_tool(gateway, yrden):
    gw = gateway({"mcpServers": {"sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]}}})
    async with mcp_session(gw.url, mode=MODES[0], label="names") as s:
        await s.wait_for_tools({"sample__greet"})
        with anyio.fail_after(20):
            await s.client.call_tool("sample__add_tool", {"name": LONG})
            await s.client.call_tool("sample__add_tool", {"name": "git.status"})
        names = await s.wait_for_tools({"sample__greet"})
        for _ in range(100):
            names = await s.tool_names()
            if len(names) == 6:
                break
            await anyio.sleep(0.1)
        assert all(HOST_RULE.match(name) for name in names), names

        async with httpx2.AsyncClient(timeout=10) as http:
            listing = (await http.get(f"{gw.base}/api/v1/tools")).json()
        by_upstream = {entry["upstreamName"]: entry["tool"]["name"] for entry in listing["tools"]}
        long_public, dotted_public = by_upstream[LONG], by_upstream["git.status"]
        assert len(long_public) == 64 and long_public.startswith("sample__repository_search_issues"), long_public
        assert dotted_public.startswith("sample__git_status_"), dotted_public
        assert {long_public, dotted_public} <= names
        assert by_upstream["greet"] == "sample__greet", "a name that fits is left as it is"
        assert listing["conflicts"] == []

        with anyio.fail_after(20):
            result = await s.client.call_tool(long_public, {})
            assert text_of(result) == f"{LONG} was added at runtime"
            assert text_of(await s.client.call_tool(dotted_public, {})) == "git.status was added at runtime"
