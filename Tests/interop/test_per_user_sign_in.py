"""A per-user server's sign-in as a user meets it: the gateway's own sign-in link, ``-32042`` for a
2026-07-28 client that declared URL elicitation, ``notifications/elicitation/complete`` to the session that was
asked, and a user's token the upstream refuses (refreshed once, else a new sign-in).

Same setup as ``test_per_user.py``: the OAuth peer is the upstream, the users are two static client tokens, the
server's own connection is signed in by the operator, and ``whoami`` tells whose token reached the upstream.
"""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from mcp import MCPError, types

from harness import MODERN_VERSION, Gateway, answer_to, await_until, free_port, mcp_session, raw_mcp, text_of
from oauth_peer import OAuthServer, browser_sign_in, leaked_secrets, oauth_server  # noqa: F401 (fixture)
from postgres import PostgresServer, postgres  # noqa: F401 (the fixture)
from replicas import Replicas, replicas  # noqa: F401 (the fixture)
from test_per_user import ADMIN_TOKEN, ALICE, BOB, CALL_TIMEOUT, client_id_of, operator_signs_in, whoami_as

URL_ELICITATION_REQUIRED = -32042
TOOL = "tasks__whoami"


def per_user_gateway(
    peer: OAuthServer, gateway: Any, tmp_path: Path, settings: dict[str, Any] | None = None, **server: Any
) -> Gateway:
    config = {
        "gateway": {"clientTokens": [ALICE, BOB], **(settings or {})},
        "mcpServers": {"tasks": {"url": peer.url, "auth": {"type": "oauth", "perUser": True}, **server}},
    }
    return gateway(config, extra_args=("--data-dir", str(tmp_path / "data")), env={"YRDEN_ADMIN_TOKEN": ADMIN_TOKEN})


async def sign_in_link(gw: Gateway, token: str, base: str | None = None) -> str:
    """The link a user's call was answered with (a tool error, the SDK's 2026-07-28 client raising it), served
    at ``base`` (the gateway's own by default)."""
    try:
        result = await whoami_as(gw, token)
        assert result.is_error, text_of(result)
        shown = text_of(result)
    except MCPError as error:
        shown = error.error.message
    links = re.findall(r"https?://\S+", shown)
    assert links and links[0].startswith(f"{base or gw.base}/oauth/sign-in/"), shown
    return links[0]


async def signed_in(gw: Gateway, token: str) -> str:
    """The user signs in through the link of their first call; returns the client_id their calls then carry."""
    visit = await browser_sign_in(await sign_in_link(gw, token))
    assert visit.final_status == 200 and visit.final_url.startswith(f"{gw.base}/oauth/callback?"), visit.hops
    return client_id_of(await whoami_as(gw, token))


async def test_a_sign_in_link_opens_only_its_users_pending_sign_in_and_stops_once_it_is_over(
    oauth_server, gateway, tmp_path: Path
) -> None:
    peer: OAuthServer = oauth_server()
    gw = per_user_gateway(peer, gateway, tmp_path)
    await operator_signs_in(gw, "tasks")

    alice_link = await sign_in_link(gw, ALICE)
    assert await sign_in_link(gw, ALICE) == alice_link, "a second call while the sign-in waits gets the same link"
    bob_link = await sign_in_link(gw, BOB)
    assert bob_link != alice_link
    assert len(alice_link.rsplit("/", 1)[1]) >= 22, "the link's id is at least 128 random bits"

    async with httpx2.AsyncClient(timeout=CALL_TIMEOUT, follow_redirects=False) as http:
        opened = await http.get(alice_link)
        assert opened.status_code == 302, opened.text
        assert opened.headers["location"].startswith(f"{peer.base}/authorize?"), opened.headers
        assert opened.headers["cache-control"] == "no-store"
        assert opened.content == b""
        forged = await http.get(f"{gw.base}/oauth/sign-in/{secrets.token_urlsafe(32)}")
        assert forged.status_code == 404 and "not valid" in forged.text and "location" not in forged.headers

        visit = await browser_sign_in(alice_link)
        assert visit.final_status == 200 and visit.final_url.startswith(f"{gw.base}/oauth/callback?"), visit.hops
        assert not client_id_of(await whoami_as(gw, ALICE)).startswith("https://")

        used = await http.get(alice_link)
        assert used.status_code == 404 and "text/html" in used.headers["content-type"], used.text
        assert used.headers["cache-control"] == "no-store"
        # Bob's sign-in is still his own, still pending; refused, its page says how to get a new link.
        assert (await http.get(bob_link)).status_code == 302
        peer.set_deny(True)
        refused = await browser_sign_in(bob_link)
        assert "did not complete" in refused.final_text and "Call the tool again" in refused.final_text
        assert "yrden login" not in refused.final_text
        assert (await http.get(bob_link)).status_code == 404
    assert leaked_secrets(gw.log_text(), peer.all_secret_values() + [ALICE, BOB]) == []


@pytest.mark.parametrize("upstream_era", ["2026-07-28", "2025-11-25"])
async def test_a_modern_client_that_declared_url_elicitation_gets_32042_with_the_link_then_its_call_works(
    oauth_server, gateway, tmp_path: Path, upstream_era: str
) -> None:
    """Toward a handshake-era upstream such a call runs parked (the upstream may ask the client something);
    that peer keeps no sessions, since it binds a session to the token that opened it (the server's own)."""
    peer: OAuthServer = oauth_server(stateless=upstream_era != "2026-07-28")
    gw = per_user_gateway(peer, gateway, tmp_path, protocol=upstream_era)
    await operator_signs_in(gw, "tasks")
    envelope = {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "yrden-interop-raw", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}},
    }
    params = {"name": TOOL, "arguments": {}, "_meta": envelope}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    headers = {
        "Authorization": f"Bearer {ALICE}",
        "MCP-Protocol-Version": MODERN_VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": TOOL,
    }
    async with raw_mcp(gw.url, timeout=CALL_TIMEOUT) as raw:
        first = answer_to(await raw.post(call, headers=headers), 1)
        again = answer_to(await raw.post(call, headers=headers), 1)
        assert first["error"]["code"] == URL_ELICITATION_REQUIRED, first
        [elicitation] = first["error"]["data"]["elicitations"]
        assert set(elicitation) == {"mode", "url", "elicitationId", "message"}, elicitation
        assert elicitation["mode"] == "url" and elicitation["url"].startswith(f"{gw.base}/oauth/sign-in/")
        assert elicitation["url"] in elicitation["message"]
        # The same sign-in, the same link and id, for the user's next call while it waits.
        assert again["error"]["data"]["elicitations"] == [elicitation], again

        visit = await browser_sign_in(elicitation["url"])
        assert visit.final_status == 200 and visit.final_url.startswith(f"{gw.base}/oauth/callback?"), visit.hops
        answered = answer_to(await raw.post(call, headers=headers), 1)
        assert "result" in answered and not answered["result"].get("isError"), answered
        alice_client = answered["result"]["structuredContent"]["client_id"]
        assert alice_client == peer.stats()["clients"][-1]["client_id"]

        # A refused token is refreshed once and the call sent again.
        peer.revoke_client_tokens(alice_client)
        refreshed = answer_to(await raw.post(call, headers=headers), 1)
        assert refreshed["result"]["structuredContent"]["client_id"] == alice_client, refreshed
        assert peer.stats()["refreshes_by_client"] == {alice_client: 1}
        # A refused refresh: the answer is a new sign-in through the gateway's link, not the 401.
        peer.revoke_client_tokens(alice_client, refresh=True)
        refused = answer_to(await raw.post(call, headers=headers), 1)
    assert f"{gw.base}/oauth/sign-in/" in json.dumps(refused) and "HTTP 401" not in json.dumps(refused), refused


async def test_the_session_that_was_asked_hears_elicitation_complete_when_its_user_has_signed_in(
    oauth_server, gateway, tmp_path: Path
) -> None:
    peer: OAuthServer = oauth_server()
    gw = per_user_gateway(peer, gateway, tmp_path)
    await operator_signs_in(gw, "tasks")
    asked: list[types.ElicitRequestURLParams] = []

    async def sign_in_when_asked(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestURLParams), params
        asked.append(params)
        visit = await browser_sign_in(str(params.url))
        assert visit.final_status == 200, visit.hops
        return types.ElicitResult(action="accept")

    bob = {"Authorization": f"Bearer {BOB}"}
    alice = {"Authorization": f"Bearer {ALICE}"}
    async with (
        mcp_session(gw.url, mode="legacy", subscribe=True, headers=bob, elicitation_callback=sign_in_when_asked) as s,
        mcp_session(gw.url, mode="legacy", subscribe=True, headers=alice, label="alice") as other,
    ):
        with anyio.fail_after(CALL_TIMEOUT):
            first = await s.client.call_tool(TOOL, {})
        assert first.is_error and "call again" in text_of(first), text_of(first)
        [params] = asked
        assert params.url.startswith(f"{gw.base}/oauth/sign-in/")
        done = await s.wait_for_notification(
            "notifications/elicitation/complete",
            predicate=lambda n: n.params.elicitation_id == params.elicitation_id,
        )
        assert done.params.elicitation_id == params.elicitation_id
        with anyio.fail_after(CALL_TIMEOUT):
            again = await s.client.call_tool(TOOL, {})
        assert not again.is_error, text_of(again)
        # Only the client that was shown the elicitation is told (the spec's rule): not another user's session.
        assert other.received("notifications/elicitation/complete") == []


async def test_a_users_refused_token_is_refreshed_once_and_a_refused_refresh_asks_them_to_sign_in_again(
    oauth_server, gateway, tmp_path: Path
) -> None:
    peer: OAuthServer = oauth_server()
    gw = per_user_gateway(peer, gateway, tmp_path)
    await operator_signs_in(gw, "tasks")
    alice_client = await signed_in(gw, ALICE)
    bob_client = await signed_in(gw, BOB)
    assert peer.stats()["refreshes_by_client"] == {}

    # The upstream stops taking Alice's access token: her next calls (three at once) succeed after one refresh.
    assert peer.revoke_client_tokens(alice_client) >= 1
    async with anyio.create_task_group() as tg:
        results: list[types.CallToolResult] = []

        async def call() -> None:
            results.append(await whoami_as(gw, ALICE))

        for _ in range(3):
            tg.start_soon(call)
    assert [client_id_of(r) for r in results] == [alice_client] * 3
    assert peer.stats()["refreshes_by_client"] == {alice_client: 1}
    assert client_id_of(await whoami_as(gw, BOB)) == bob_client

    # Her refresh token is revoked too: her next call is answered with a new sign-in link, Bob's still works.
    peer.revoke_client_tokens(alice_client, refresh=True)
    link = await sign_in_link(gw, ALICE)
    assert peer.stats()["refreshes_by_client"] == {alice_client: 1}
    assert peer.stats()["token_requests"]["refresh_token"]["failed"] == 1
    assert client_id_of(await whoami_as(gw, BOB)) == bob_client
    assert peer.stats()["refreshes_by_client"].get(bob_client) is None
    visit = await browser_sign_in(link)
    assert visit.final_status == 200, visit.hops
    assert client_id_of(await whoami_as(gw, ALICE)) == alice_client


async def test_a_sign_in_link_given_by_one_replica_works_on_another_while_its_sign_in_is_pending(
    postgres: PostgresServer, oauth_server, replicas
) -> None:
    """Behind a balancer the link, like the callback, may reach any replica: it is kept in the store beside the
    pending sign-in it opens, and answers 302 there until the callback takes that sign-in out."""
    peer: OAuthServer = oauth_server()
    config = {
        "store": {"postgres": f"postgres://yrden:${{PGPASSWORD}}@127.0.0.1:{postgres.port}/yrden?sslmode=disable"},
        "gateway": {"clientTokens": [ALICE, BOB]},
        "mcpServers": {"tasks": {"url": peer.url, "auth": {"type": "oauth", "perUser": True}}},
    }
    key = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"
    group: Replicas = replicas(
        config, n=2, env={"PGPASSWORD": postgres.password, "YRDEN_SECRET_KEY": key, "YRDEN_ADMIN_TOKEN": ADMIN_TOKEN}
    )
    one, two = (group.replica(name) for name in group.names)
    await operator_signs_in(one, "tasks")
    link = await sign_in_link(one, ALICE)
    on_two = two.base + urlsplit(link).path

    async with httpx2.AsyncClient(timeout=CALL_TIMEOUT, follow_redirects=False) as http:

        async def answered(status: int) -> httpx2.Response | None:
            response = await http.get(on_two)
            return response if response.status_code == status else None

        # Replica2's copy of the store catches up within milliseconds: a lasting state, waited for.
        opened = await await_until(lambda: answered(302), 10, interval=0.1)
        assert opened.headers["location"] == (await http.get(link)).headers["location"]
        visit = await browser_sign_in(on_two)
        assert visit.final_status == 200 and visit.final_url.startswith(f"{one.base}/oauth/callback?"), visit.hops
        assert client_id_of(await whoami_as(one, ALICE))
        gone = await await_until(lambda: answered(404), 10, interval=0.1)
        assert "not valid" in gone.text
        assert (await http.get(link)).status_code == 404


async def test_with_a_callback_listener_of_its_own_the_link_is_served_there(oauth_server, gateway, tmp_path: Path):
    peer: OAuthServer = oauth_server()
    callback = f"http://127.0.0.1:{free_port()}"
    gw = per_user_gateway(peer, gateway, tmp_path, {"oauthCallback": callback.removeprefix("http://")})
    await operator_signs_in(gw, "tasks")
    link = await sign_in_link(gw, ALICE, base=callback)
    visit = await browser_sign_in(link)
    assert visit.final_status == 200 and visit.final_url.startswith(f"{callback}/oauth/callback?"), visit.hops
    assert client_id_of(await whoami_as(gw, ALICE))
