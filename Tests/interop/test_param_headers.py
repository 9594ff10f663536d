"""2026-07-28's ``Mcp-Param-*`` headers: arguments a tool marks with ``x-mcp-header`` travel in headers too.

The gateway keeps the annotations on the tools it re-exposes, checks a 2026-07-28 client's headers against
its body (-32020 when they disagree), computes them anew for a 2026-07-28 HTTP upstream, and drops from
such an upstream's list a tool whose annotation is invalid (it could not send its headers). The upstream is
``servers/asking_server.py``: ``where(region, count)`` answers with the headers it received, and
``bad_header`` carries an annotation on a ``number``.
"""

from __future__ import annotations

import anyio
import httpx2
import pytest

from harness import ASKING_SERVER, PYTHON, answer_to, mcp_session, raw_mcp, text_of
from test_stateless_era import headers, modern


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_modern_http_upstream_gets_the_headers_and_loses_its_invalid_tool(gateway, http_asking, mode):
    gw = gateway({"mcpServers": {"asking": {"url": http_asking}}})
    async with mcp_session(gw.url, mode=mode) as s:
        names = await s.wait_for_tools({"asking__where"})
        assert "asking__bad_header" not in names
        where = await s.tool("asking__where")
        assert where.input_schema["properties"]["region"]["x-mcp-header"] == "Region", "annotations are kept"
        with anyio.fail_after(15):
            result = await s.client.call_tool("asking__where", {"region": "Émile", "count": 7})
        assert text_of(result) == "Émile 7 | =?base64?w4ltaWxl?= 7"
    logs = httpx2.get(f"{gw.base}/api/v1/logs", params={"server": "asking"}, timeout=10).text
    assert "dropped tool bad_header" in logs


async def test_a_stdio_upstream_keeps_the_tool_it_could_not_be_sent_headers_for(gateway):
    gw = gateway({"mcpServers": {"asking": {"command": PYTHON, "args": [str(ASKING_SERVER)]}}})
    async with mcp_session(gw.url, mode="legacy") as s:
        names = await s.wait_for_tools({"asking__where"})
        assert "asking__bad_header" in names


@pytest.mark.parametrize(
    ("sent", "status"),
    [
        ({"Mcp-Param-Region": "eu", "Mcp-Param-Count": "3"}, 200),
        ({"mcp-param-region": "eu", "MCP-PARAM-COUNT": "003"}, 200),  # names ignore case; integers compare as numbers
        ({"Mcp-Param-Region": "=?base64?ZXU=?=", "Mcp-Param-Count": "3"}, 200),
        ({"Mcp-Param-Count": "3"}, 400),  # Region missing
        ({"Mcp-Param-Region": "us", "Mcp-Param-Count": "3"}, 400),  # disagrees with the body
        ({"Mcp-Param-Region": "eu", "Mcp-Param-Count": "4"}, 400),
    ],
)
async def test_a_modern_clients_headers_are_checked_against_its_arguments(gateway, http_asking, sent, status):
    gw = gateway({"mcpServers": {"asking": {"url": http_asking}}})
    async with mcp_session(gw.url, mode="legacy") as s:
        await s.wait_for_tools({"asking__where"})
    body = modern("tools/call", {"name": "asking__where", "arguments": {"region": "eu", "count": 3}})
    async with raw_mcp(gw.url) as raw:
        response = await raw.post(body, headers={**headers("tools/call", "asking__where"), **sent})
    assert response.status_code == status, response.text[:300]
    if status == 400:
        assert answer_to(response, 1)["error"]["code"] == -32020
    else:
        assert "eu 3 | eu 3" in response.text
