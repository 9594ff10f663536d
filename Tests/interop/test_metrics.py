"""`GET /metrics`: what a Prometheus scraper reads after real traffic through the gateway."""

from __future__ import annotations

import re

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from harness import free_port, mcp_session, text_of


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of the sample `name{labels…}` in Prometheus text, or None."""
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line[: line.index("}")]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


async def test_calls_states_and_failures_are_counted(gateway, yrden):
    config = {
        "mcpServers": {
            "demo": {"command": str(yrden), "args": ["demo-server"]},
            "gone": {"url": f"http://127.0.0.1:{free_port()}/mcp", "reconnect": "never"},
        }
    }
    gw = gateway(config)
    async with mcp_session(gw.url, mode="legacy") as session:
        result = await session.client.call_tool("demo__echo", {"message": "hi"})
        assert "hi" in text_of(result)
        try:  # the demo's `fail` answers with an error: the server's answer, not a transport failure
            await session.client.call_tool("demo__fail", {})
        except MCPError:
            pass
        await session.client.list_tools()
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.get(f"{gw.base}/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    text = response.text
    assert sample(text, "yrden_upstream_requests_total", server="demo", method="tools/call") == 2
    assert sample(text, "yrden_upstream_request_duration_seconds_count", server="demo", method="tools/call") == 2
    assert sample(text, "yrden_upstream_state", server="demo", state="connected") == 1
    assert sample(text, "yrden_upstream_state", server="demo", state="failed") == 0
    assert sample(text, "yrden_upstream_state", server="gone", state="failed") == 1
    assert sample(text, "yrden_upstream_errors_total", server="demo") is None, "no transport failure happened"
    assert "# TYPE yrden_upstream_request_duration_seconds histogram" in text


async def test_a_transport_failure_is_counted_by_kind(gateway, yrden):
    config = {"mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"], "timeouts": {"toolCall": 1}}}}
    gw = gateway(config)
    async with mcp_session(gw.url, mode="legacy") as session:
        with pytest.raises(MCPError, match="timed out"):
            await session.client.call_tool("demo__slow", {"seconds": 5})
    async with httpx2.AsyncClient(timeout=10) as http:
        text = (await http.get(f"{gw.base}/metrics")).text
    assert sample(text, "yrden_upstream_errors_total", server="demo", kind="timeout") == 1


async def test_a_removed_server_leaves_no_series(gateway, yrden):
    gw = gateway({"mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}}})
    async with httpx2.AsyncClient(timeout=30) as http:
        added = await http.post(
            f"{gw.base}/api/v1/servers",
            json={"id": "extra", "config": {"command": str(yrden), "args": ["demo-server"]}},
        )
        assert added.status_code == 201, added.text
        async with mcp_session(gw.url, mode="legacy") as session:
            await session.wait_for_tools({"extra__echo"})
            await session.client.call_tool("extra__echo", {"message": "hi"})
        text = (await http.get(f"{gw.base}/metrics")).text
        assert sample(text, "yrden_upstream_requests_total", server="extra", method="tools/call") == 1
        assert sample(text, "yrden_upstream_state", server="extra", state="connected") == 1

        assert (await http.delete(f"{gw.base}/api/v1/servers/extra")).status_code in (200, 204)
        text = (await http.get(f"{gw.base}/metrics")).text
    leftovers = [line for line in text.splitlines() if 'server="extra"' in line]
    assert leftovers == [], "a removed server's series should be gone, not kept at zero"
    assert sample(text, "yrden_upstream_state", server="demo", state="connected") == 1
