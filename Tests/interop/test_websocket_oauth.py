"""A WebSocket upstream protected by OAuth (``"type": "websocket", "auth": {"type": "oauth"}``).

The upstream is the official Python SDK 1.x's ``websocket_server`` (``servers/websocket_server.py`` with
``--oauth-issuer``): a protected resource whose RFC 9728 metadata names ``oauth_server.py`` as its
authorization server, and whose upgrade must carry a token that server issued for it. The gateway signs in
through a scripted browser, exactly as for an HTTP server: discovery and the RFC 8707 resource go by the
WebSocket URL's http form, and the token goes with the upgrade.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

from harness import Gateway, admin_events, await_until, free_port, mcp_session, text_of
from oauth_peer import OAuthServer, browser_sign_in, oauth_server  # noqa: F401 (fixture)
from test_websocket_upstream import PYTHON_1X, websocket_upstream

pytestmark = pytest.mark.skipif(not PYTHON_1X.exists(), reason="needs .venv-1x (make venv-1x)")

SIGN_IN_TIMEOUT = 30.0


def protected_upstream(peer: OAuthServer, port: int, log: Path):
    return websocket_upstream(log, port, args=("--oauth-issuer", peer.base))


async def upgrades(port: int) -> dict[str, Any]:
    async with httpx2.AsyncClient() as http:
        return (await http.get(f"http://127.0.0.1:{port}/control/upgrades")).json()


async def sign_in(gw: Gateway, server_id: str) -> None:
    """Opens the authorization URL the server waits on, as the user would, up to the gateway's callback page."""

    async def waiting_url() -> str | None:
        async with httpx2.AsyncClient() as http:
            view = (await http.get(f"{gw.base}/api/v1/servers/{server_id}")).json()
        auth = view.get("auth") or {}
        return auth.get("authorizationURL") if auth.get("status") == "waitingForUser" else None

    url = await await_until(waiting_url, SIGN_IN_TIMEOUT, interval=0.1)
    visit = await browser_sign_in(url)
    assert visit.reached_client and visit.final_status == 200, visit.hops


@pytest.mark.anyio
async def test_the_gateway_signs_in_to_a_websocket_server_and_sends_the_token_with_the_upgrade(
    gateway, oauth_server, tmp_path: Path
) -> None:
    port = free_port()
    resource = f"http://127.0.0.1:{port}/ws"
    peer: OAuthServer = oauth_server(extra_resources=(resource,))
    with protected_upstream(peer, port, tmp_path / "ws.log"):
        entry = {"type": "websocket", "url": f"ws://127.0.0.1:{port}/ws", "auth": {"type": "oauth"}}
        gw: Gateway = gateway({"mcpServers": {"ws": entry}}, extra_args=("--data-dir", str(tmp_path / "data")))
        async with admin_events(gw) as events:
            await sign_in(gw, "ws")
            view = await events.reach_state("ws", "connected", SIGN_IN_TIMEOUT)
        async with mcp_session(gw.url) as session:
            greeting = text_of(await session.client.call_tool("ws__greet", {"name": "signed in"}))
        seen = await upgrades(port)
    assert greeting == "Hello over WebSocket, signed in!"
    assert view["auth"]["status"] == "complete", view["auth"]
    # No upgrade was tried without a token: discovery read the metadata first.
    assert seen["upgrades"] == {"accepted": 1}, seen
    stats = peer.stats()
    assert stats["last_authorize_resource"] == resource and stats["last_token_resource"] == resource, stats
    secrets = peer.secrets()
    log = gw.log_text()
    assert not any(token in log for token in secrets["access_tokens"] + secrets["refresh_tokens"])


@pytest.mark.anyio
async def test_a_refused_token_at_the_upgrade_is_refreshed_once_and_the_upgrade_sent_again(
    gateway, oauth_server, tmp_path: Path
) -> None:
    port = free_port()
    peer: OAuthServer = oauth_server(extra_resources=(f"http://127.0.0.1:{port}/ws",))
    entry = {
        "type": "websocket",
        "url": f"ws://127.0.0.1:{port}/ws",
        "auth": {"type": "oauth"},
        "reconnect": {"initialDelay": 0.2, "maxDelay": 0.5},
    }
    with protected_upstream(peer, port, tmp_path / "ws.log") as first:
        gw: Gateway = gateway({"mcpServers": {"ws": entry}}, extra_args=("--data-dir", str(tmp_path / "data")))
        async with admin_events(gw) as events:
            await sign_in(gw, "ws")
            await events.reach_state("ws", "connected", SIGN_IN_TIMEOUT)
            # The token the gateway holds still looks valid to it for an hour; the server says it is not.
            peer.expire_access_tokens()
            mark = events.mark()
            first.kill()
            first.wait(timeout=10)
            await events.wait_for(
                lambda name, data: name == "server.state"
                and data["server"]["id"] == "ws"
                and data["server"]["state"] != "connected",
                10,
                after=mark,
                what="ws no longer connected",
            )
            mark = events.mark()
            with protected_upstream(peer, port, tmp_path / "ws2.log"):
                await events.wait_for_state("ws", "connected", 30, after=mark)
                async with mcp_session(gw.url) as session:
                    greeting = text_of(await session.client.call_tool("ws__greet", {"name": "refreshed"}))
                seen = await upgrades(port)
    assert greeting == "Hello over WebSocket, refreshed!"
    assert seen["upgrades"] == {"expired": 1, "accepted": 1}, seen
    assert peer.stats()["refreshes"] == 1
