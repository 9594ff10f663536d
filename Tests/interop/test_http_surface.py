"""The MCP endpoint's HTTP behaviour, with raw requests (handshake era, 2025-11-25)."""

from __future__ import annotations

import json
import re
import uuid

import httpx2
import pytest

from harness import LEGACY_VERSION, MODERN_VERSION, Gateway, answer_to, messages_in, raw_mcp

BODY_LIMIT = 16 * 1024 * 1024
VISIBLE_ASCII = re.compile(r"^[\x21-\x7e]+$")


@pytest.fixture(scope="module")
def gw(shared_gateway: Gateway) -> Gateway:
    return shared_gateway


def error_of(answer: dict) -> dict:
    assert "error" in answer, f"expected a JSON-RPC error, got {answer}"
    return answer["error"]


async def test_initialize_mints_a_session(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()  # also asserts 202 for notifications/initialized
    assert VISIBLE_ASCII.match(session.session_id), repr(session.session_id)
    assert len(session.session_id) >= 16, "a session id should be unguessable"
    assert session.protocol_version == LEGACY_VERSION
    result = answer_to(session.initialize_response, 0)["result"]
    assert result["serverInfo"]["name"]
    assert "tools" in result["capabilities"]


async def test_each_initialize_gets_a_new_session(gw):
    async with raw_mcp(gw.url) as raw:
        ids = {(await raw.initialize()).session_id for _ in range(3)}
    assert len(ids) == 3


async def test_notification_is_accepted_with_202(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        response = await session.notify("notifications/cancelled", {"requestId": 424242, "reason": "test"})
    assert response.status_code == 202
    assert response.content == b""


async def test_ping(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        answer = await session.request("ping", id="ping-1")
    assert answer == {"jsonrpc": "2.0", "id": "ping-1", "result": {}}


async def test_malformed_json_is_a_parse_error_with_null_id(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        response = await session.post(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"')
    assert response.status_code == 400, f"HTTP {response.status_code}: {response.text[:300]}"
    [answer] = messages_in(response)
    assert answer.get("id", "missing") is None, answer
    assert error_of(answer)["code"] == -32700


async def test_unknown_method(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        answer = await session.request("no/such/method", {}, id=7)
    assert answer["id"] == 7
    assert error_of(answer)["code"] == -32601


async def test_unknown_tool_is_a_protocol_error_naming_the_tool(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        answer = await session.request("tools/call", {"name": "nope__missing_tool", "arguments": {}}, id=8)
    error = error_of(answer)
    assert "nope__missing_tool" in error["message"], error
    assert error["code"] in (-32602, -32601), error


async def test_body_over_16_mib_is_refused_with_413(gw):
    filler = "x" * (BODY_LIMIT + 64 * 1024)
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {"name": "demo__echo", "arguments": {"text": filler}},
        }
    )
    async with raw_mcp(gw.url, timeout=60) as raw:
        session = await raw.initialize()
        try:
            response = await session.post(body)
        except httpx2.TransportError as e:
            # Seen when the server answers 413 and closes at once while the client is still
            # uploading: the reset discards the answer before an async client (the SDK's) reads it.
            pytest.fail(
                f"no 413 reached the client ({e!r}): the gateway closed the connection while the body was "
                "still being sent; drain (discard) the rest of the body or half-close before closing"
            )
    assert response.status_code == 413, f"HTTP {response.status_code}: {response.text[:300]}"


async def test_body_just_under_the_limit_is_not_refused(gw):
    # 1 MiB is far below the limit: it must be served like any request.
    text = "y" * (1024 * 1024)
    async with raw_mcp(gw.url, timeout=60) as raw:
        session = await raw.initialize()
        answer = await session.request("tools/call", {"name": "sample__greet", "arguments": {"name": text}}, id=10)
    assert "result" in answer, str(answer)[:300]
    assert answer["result"]["content"][0]["text"] == f"Hello, {text}!"


async def test_missing_session_id_is_400(gw):
    async with raw_mcp(gw.url) as raw:
        await raw.initialize()
        response = await raw.post(
            {"jsonrpc": "2.0", "id": 11, "method": "tools/list"}, headers={"MCP-Protocol-Version": LEGACY_VERSION}
        )
    assert response.status_code == 400, f"HTTP {response.status_code}: {response.text[:300]}"


async def test_unknown_session_id_is_404(gw):
    async with raw_mcp(gw.url) as raw:
        response = await raw.post(
            {"jsonrpc": "2.0", "id": 12, "method": "tools/list"},
            headers={"Mcp-Session-Id": f"unknown-{uuid.uuid4().hex}", "MCP-Protocol-Version": LEGACY_VERSION},
        )
    assert response.status_code == 404, f"HTTP {response.status_code}: {response.text[:300]}"


@pytest.mark.parametrize("origin", ["http://evil.example", "https://attacker.test:8750", "null"])
async def test_foreign_origin_is_403(gw, origin):
    async with raw_mcp(gw.url) as raw:
        response = await raw.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": LEGACY_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "evil", "version": "1"},
                },
            },
            headers={"Origin": origin},
        )
    assert response.status_code == 403, f"Origin {origin}: HTTP {response.status_code}: {response.text[:300]}"
    assert "mcp-session-id" not in response.headers


async def test_loopback_origin_is_allowed(gw):
    async with raw_mcp(gw.url) as raw:
        response = await raw.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": LEGACY_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "local", "version": "1"},
                },
            },
            headers={"Origin": gw.base},
        )
    assert response.status_code == 200, f"HTTP {response.status_code}: {response.text[:300]}"


async def test_delete_ends_the_session(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        assert "result" in await session.request("tools/list", id=13)
        deleted = await session.delete()
        assert deleted.status_code in (200, 202, 204), f"DELETE: HTTP {deleted.status_code}"
        after = await session.post({"jsonrpc": "2.0", "id": 14, "method": "tools/list"})
    assert after.status_code == 404, f"after DELETE: HTTP {after.status_code}: {after.text[:300]}"


async def test_unsupported_protocol_version_header_is_400(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        response = await session.post(
            {"jsonrpc": "2.0", "id": 15, "method": "tools/list"}, headers={"MCP-Protocol-Version": "1999-01-01"}
        )
    assert response.status_code == 400, f"HTTP {response.status_code}: {response.text[:300]}"


@pytest.mark.stateless_era
async def test_server_discover_is_answered_without_a_session(gw):
    """The stateless era (2026-07-28): what the SDK client sends first in its default mode."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
                "io.modelcontextprotocol/clientInfo": {"name": "yrden-interop-raw", "version": "1.0.0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
    async with raw_mcp(gw.url) as raw:
        response = await raw.post(
            body, headers={"MCP-Protocol-Version": MODERN_VERSION, "Mcp-Method": "server/discover"}
        )
    assert response.status_code == 200, f"HTTP {response.status_code}: {response.text[:300]}"
    assert "mcp-session-id" not in response.headers, "the stateless era has no sessions"
    result = answer_to(response, 1)["result"]
    assert MODERN_VERSION in result["supportedVersions"], result
    assert "tools" in result["capabilities"], result
    assert result.get("resultType") == "complete"
    assert isinstance(result.get("ttlMs"), int) and result.get("cacheScope") in ("public", "private"), result


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
async def test_health_endpoints(gw, path):
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.get(gw.base + path)
    assert response.status_code == 200
    assert response.headers.get("content-type", "").startswith("application/json")
    body = response.json()
    assert isinstance(body.get("status"), str) and body["status"], body
    for key in ("version", "timestamp", "uptimeSeconds", "servers"):
        assert key in body, f"{path} lacks {key!r}: {body}"
    assert {"demo", "time", "sample"} <= set(body["servers"]), body["servers"]


CLIENT_TOKEN = "mcp-client-3c81f0"


async def test_client_tokens_guard_the_mcp_endpoint(gateway, yrden):
    """With `gateway.clientTokens` set, /mcp answers 401 without a listed bearer token, and an SDK client that
    sends one works as usual. The token is shown redacted by the admin API."""
    from harness import mcp_session

    config = {
        "gateway": {"clientTokens": ["${CLIENT_TOKEN_UNDER_TEST}"], "adminToken": "adm-x"},
        "mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}},
    }
    gw = gateway(config, env={"CLIENT_TOKEN_UNDER_TEST": CLIENT_TOKEN})
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with httpx2.AsyncClient(timeout=10) as http:
        refused = await http.post(gw.url, json=initialize, headers=headers)
        assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Bearer")
        wrong = await http.post(gw.url, json=initialize, headers={**headers, "Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        shown = await http.get(f"{gw.base}/api/v1/config", headers={"Authorization": "Bearer adm-x"})
        assert shown.json()["gateway"]["clientTokens"] == ["${CLIENT_TOKEN_UNDER_TEST}"]
    async with mcp_session(gw.url, mode="legacy", headers={"Authorization": f"Bearer {CLIENT_TOKEN}"}) as session:
        tools = await session.client.list_tools()
        assert any(tool.name == "demo__echo" for tool in tools.tools)
    assert CLIENT_TOKEN not in gw.log_text()


# --- Media types: 415 for a body that is not JSON, 406 for a client that cannot take the answers -------------


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
async def test_post_that_is_not_json_is_415(gw, content_type):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        headers = session.headers({"Accept": "application/json, text/event-stream"})
        if content_type:
            headers["Content-Type"] = content_type
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
        response = await raw.http.post(gw.url, content=body, headers=headers)
    assert response.status_code == 415, f"Content-Type {content_type}: HTTP {response.status_code}: {response.text[:300]}"
    assert "application/json" in error_of(response.json())["message"]


async def test_post_with_json_and_a_charset_is_served(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        response = await session.post(
            {"jsonrpc": "2.0", "id": "cs", "method": "ping"}, headers={"Content-Type": "application/json; charset=utf-8"}
        )
    assert answer_to(response, "cs") == {"jsonrpc": "2.0", "id": "cs", "result": {}}


@pytest.mark.parametrize("accept", ["text/html", "application/json", "text/event-stream", "text/*"])
async def test_post_that_does_not_accept_json_and_sse_is_406(gw, accept):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        headers = session.headers({"Content-Type": "application/json", "Accept": accept})
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
        response = await raw.http.post(gw.url, content=body, headers=headers)
    assert response.status_code == 406, f"Accept {accept}: HTTP {response.status_code}: {response.text[:300]}"
    assert "text/event-stream" in error_of(response.json())["message"]


async def test_initialize_with_text_html_accept_is_406_and_opens_no_session(gw):
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": MODERN_VERSION, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}},
    }
    async with httpx2.AsyncClient(timeout=10) as http:
        response = await http.post(gw.url, json=body, headers={"Accept": "text/html"})
    assert response.status_code == 406, f"HTTP {response.status_code}: {response.text[:300]}"
    assert "mcp-session-id" not in response.headers


async def test_wildcard_accept_is_served(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        answer = answer_to(await session.post({"jsonrpc": "2.0", "id": "w", "method": "ping"}, headers={"Accept": "*/*"}), "w")
    assert answer["result"] == {}


async def test_get_stream_that_does_not_accept_sse_is_406(gw):
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        response = await raw.http.get(gw.url, headers=session.headers({"Accept": "text/html"}))
    assert response.status_code == 406, f"HTTP {response.status_code}: {response.text[:300]}"
