"""``/servers/{id}/mcp``: one server alone, under its own names, with the sessions, eras and rules of ``/mcp``.

The official SDK client (both eras) against the gateway's demo server and ``servers/sample_server.py``.
"""

from __future__ import annotations

import anyio
import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from harness import MODES, PYTHON, SAMPLE_SERVER, SAMPLE_README_TEXT, mcp_session, text_of

SAMPLE_TOOLS = {"greet", "progress", "add_tool", "pid"}
LIST_CHANGES = (
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
)


def config(yrden) -> dict:
    return {
        "mcpServers": {
            "demo": {"command": str(yrden), "args": ["demo-server"]},
            "sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]},
        }
    }


@pytest.mark.parametrize("mode", MODES)
async def test_one_server_alone_under_its_own_names(gateway, yrden, mode):
    gw = gateway(config(yrden))
    async with mcp_session(f"{gw.base}/servers/sample/mcp", mode=mode, label="sample alone") as s:
        names = await s.wait_for_tools(SAMPLE_TOOLS)
        assert names == SAMPLE_TOOLS, "only the sample server's tools, unprefixed"
        with anyio.fail_after(20):
            assert text_of(await s.client.call_tool("greet", {"name": "Ada"})) == "Hello, Ada!"
            read = await s.client.read_resource("sample://readme")
            assert read.contents[0].text == SAMPLE_README_TEXT
            prompt = await s.client.get_prompt("summarize", {"text": "abc"})
            assert "abc" in prompt.messages[0].content.text
            with pytest.raises(MCPError, match="Unknown tool: echo"):  # the demo server's tool is not here
                await s.client.call_tool("echo", {"message": "x"})
    async with mcp_session(gw.url, mode=mode, label="aggregate") as everything:
        assert {"demo__echo", "sample__greet"} <= await everything.wait_for_tools({"demo__echo", "sample__greet"})


async def test_a_change_is_announced_only_to_the_endpoints_it_concerns(gateway, yrden):
    gw = gateway(config(yrden))
    async with (
        mcp_session(f"{gw.base}/servers/sample/mcp", mode="legacy", subscribe=True, label="sample") as sample,
        mcp_session(f"{gw.base}/servers/demo/mcp", mode="legacy", subscribe=True, label="demo") as demo,
        mcp_session(gw.url, mode="legacy", subscribe=True, label="aggregate") as everything,
    ):
        await sample.wait_for_tools(SAMPLE_TOOLS)
        with anyio.fail_after(20):
            await sample.client.call_tool("add_tool", {"name": "fresh"})
        await sample.wait_for_notification("notifications/tools/list_changed")
        await everything.wait_for_notification("notifications/tools/list_changed")
        assert "fresh" in await sample.tool_names()
        assert "sample__fresh" in await everything.tool_names()
        # A change of demo's own, announced after: once all of its announcements are here, one that wrongly
        # went to demo's endpoint for sample's change would be here too, before them on the same stream.
        async with httpx2.AsyncClient(timeout=30) as http:
            response = await http.post(f"{gw.base}/api/v1/servers/demo/disconnect")
        assert response.status_code in (200, 202, 204), response.text
        for method in LIST_CHANGES:
            await demo.wait_for_notification(method)
        changes = [m for m in demo.methods() if m == "notifications/tools/list_changed"]
        assert len(changes) == 1, f"demo's endpoint heard of sample's change too: {demo.methods()}"


async def test_sessions_belong_to_their_endpoint_and_unknown_servers_are_404(gateway, yrden):
    gw = gateway(config(yrden))
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    async with httpx2.AsyncClient(timeout=10) as http:
        opened = await http.post(gw.url, json=initialize, headers=headers)
        session = opened.headers["mcp-session-id"]
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        elsewhere = await http.post(
            f"{gw.base}/servers/demo/mcp", json=listing, headers={**headers, "Mcp-Session-Id": session}
        )
        assert elsewhere.status_code == 404, "a session of /mcp is not one of /servers/demo/mcp"
        unknown = await http.post(f"{gw.base}/servers/nope/mcp", json=initialize, headers=headers)
        assert unknown.status_code == 404 and "nope" in unknown.text
