"""OAuth across replicas sharing a store (``"store": {"postgres": …}``): a sign-in made through one replica serves
calls on every replica, a sign-out through one signs all out, the browser's return to another replica than the
one that started the sign-in (a balancer sends it to any) finishes it, and three replicas whose access tokens die at the
same moment make one ``refresh_token`` grant between them, against an authorization server that revokes every
token of a sign-in when a spent refresh token comes back (``--revoke-reused-refresh-tokens``), as careful ones do.

Three gateway processes (the ``replicas`` fixture, each on its own port and data directory) share one config and
one ``YRDEN_SECRET_KEY``, with a real PostgreSQL (``postgres``) and the OAuth peer (``servers/oauth_server.py``).
The user is ``oauth_peer.browser_sign_in``, opening the authorization URL replica1 shows and landing on
replica1's own callback. Every replica is asked directly; what the peer saw (``stats()``) says what reached it.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx2

from harness import McpSession, admin_events, mcp_session, text_of
from oauth_peer import (  # noqa: F401  (oauth_server is a fixture)
    OAuthServer,
    browser_sign_in,
    leaked_secrets,
    oauth_server,
    open_in_browser,
)
from postgres import PostgresServer, postgres  # noqa: F401  (the fixture)
from replicas import Replicas, ReplicasFactory, replicas  # noqa: F401  (the fixture)

SECRET_KEY = secrets.token_hex(32)
SERVER = "tasks"
SIGN_IN_TIMEOUT = 30.0  # from the replicas' start to an authorization URL
CONNECT_TIMEOUT = 30.0  # from the browser's return to the server connected
CALL_TIMEOUT = 20.0
SIGN_OUT_BUDGET = 5.0  # the store's change is applied within 1 s; the rest is the connection's end


def shared_oauth_config(pg: PostgresServer, peer: OAuthServer) -> dict[str, Any]:
    return {
        "store": {"postgres": f"postgres://yrden:${{PGPASSWORD}}@127.0.0.1:{pg.port}/yrden?sslmode=disable"},
        "mcpServers": {SERVER: {"url": peer.url, "auth": {"type": "oauth"}}},
    }


async def view(http: httpx2.AsyncClient, base: str) -> dict[str, Any]:
    response = await http.get(f"{base}/api/v1/servers/{SERVER}")
    assert response.status_code == 200, f"GET /servers/{SERVER}: HTTP {response.status_code}: {response.text[:300]}"
    return response.json()


async def authorization_url(http: httpx2.AsyncClient, base: str, other_than: str | None = None) -> str:
    """The URL the replica waits for the user to open: a lasting state until someone signs in."""
    deadline = time.monotonic() + SIGN_IN_TIMEOUT
    while True:
        auth = (await view(http, base)).get("auth") or {}
        url = auth.get("authorizationURL")
        if auth.get("status") == "waitingForUser" and url and url != other_than:
            return url
        assert time.monotonic() < deadline, f"{base}: no sign-in waiting for the user; auth={auth}"
        await anyio.sleep(0.1)


async def whoami(session: McpSession) -> dict[str, Any]:
    """``tasks__whoami`` through the gateway: the client_id and scopes of the token the peer received."""
    with anyio.fail_after(CALL_TIMEOUT):
        result = await session.client.call_tool(f"{SERVER}__whoami", {})
    assert not result.is_error, f"{session.label}: {SERVER}__whoami failed: {text_of(result)}"
    payload = result.structured_content
    return payload if isinstance(payload, dict) else json.loads(text_of(result))


async def on_all(sessions: list[McpSession]) -> list[dict[str, Any]]:
    """``whoami`` on every session at the same moment; the answers in the sessions' order."""
    answers: list[dict[str, Any] | None] = [None] * len(sessions)

    async def call(index: int) -> None:
        answers[index] = await whoami(sessions[index])

    async with anyio.create_task_group() as tg:
        for index in range(len(sessions)):
            tg.start_soon(call, index)
    return [a for a in answers if a is not None]


def refresh_grants(peer: OAuthServer) -> dict[str, int]:
    return peer.stats()["token_requests"].get("refresh_token", {})


async def test_a_sign_in_through_one_replica_serves_all_and_they_refresh_once_between_them(
    yrden: Path, postgres: PostgresServer, oauth_server, replicas: ReplicasFactory
) -> None:
    peer: OAuthServer = oauth_server(revoke_reused_refresh_tokens=True)
    group: Replicas = replicas(
        shared_oauth_config(postgres, peer), env={"PGPASSWORD": postgres.password, "YRDEN_SECRET_KEY": SECRET_KEY}
    )
    gateways = [group.replica(name) for name in group.names]
    first, others = gateways[0], gateways[1:]
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0)) as http:
        # Every replica waits for a sign-in of its own; the user signs in through replica1.
        url = await authorization_url(http, first.base)
        for gw in others:
            await authorization_url(http, gw.base)
        async with admin_events(others[0]) as second_events, admin_events(others[1]) as third_events:
            visit = await browser_sign_in(url)
            returned = time.monotonic()
            assert visit.reached_client and visit.final_url.startswith(f"{first.base}/oauth/callback?"), visit.hops
            assert visit.final_status == 200, f"callback page: HTTP {visit.final_status}: {visit.final_text[:300]}"
            # The others connect with the tokens replica1 stored, without a sign-in of their own.
            for events in (second_events, third_events):
                await events.reach_state(SERVER, "connected", CONNECT_TIMEOUT)
            took = time.monotonic() - returned
        print(f"replicas 2 and 3 connected {took:.2f} s after the sign-in through replica1")
        stats = peer.stats()
        assert stats["token_requests"].get("authorization_code") == {"ok": 1}, stats["token_requests"]
        assert stats["authorizations"] == 1, "one sign-in, through replica1, serves all"

        async with (
            mcp_session(first.url, mode="legacy", label="replica1") as one,
            mcp_session(others[0].url, mode="legacy", label="replica2") as two,
            mcp_session(others[1].url, mode="legacy", label="replica3") as three,
        ):
            sessions = [one, two, three]
            for session in sessions:
                await session.wait_for_tools({f"{SERVER}__whoami"})
            signed_in = await on_all(sessions)
            client = signed_in[0]["client_id"]
            assert [me["client_id"] for me in signed_in] == [client] * 3, signed_in
            assert refresh_grants(peer) == {}, "nothing needed a refresh yet"

            # Every access token dies at once: each replica's next call is refused (401) and needs a refresh.
            assert peer.expire_access_tokens() >= 1
            refreshed = await on_all(sessions)
            assert [me["client_id"] for me in refreshed] == [client] * 3, refreshed
            stats = peer.stats()
            assert stats["token_requests"].get("refresh_token") == {"ok": 1}, (
                f"three replicas made {stats['token_requests'].get('refresh_token')} refresh grants, not one"
            )
            assert stats["reused_refresh_tokens"] == 0, "a spent refresh token was sent again"
            # And all go on calling, with the refreshed token.
            await on_all(sessions)
            assert peer.stats()["last_mcp_authorization"] == {
                "status": "valid",
                "client_id": client,
                "grant": "refresh_token",
            }
        assert_tokens_sealed(postgres, peer)

        # A sign-out through replica2 signs replica1 and replica3 out.
        async with admin_events(first) as first_events, admin_events(others[1]) as third_events:
            marks = (first_events.mark(), third_events.mark())
            response = await http.delete(f"{others[0].base}/api/v1/servers/{SERVER}/tokens")
            assert response.status_code == 204, f"HTTP {response.status_code}: {response.text[:300]}"
            signed_out = time.monotonic()
            for events, mark in zip((first_events, third_events), marks, strict=True):
                await events.wait_for(
                    lambda name, data: name == "server.state"
                    and data["server"]["id"] == SERVER
                    and data["server"]["state"] != "connected",
                    SIGN_OUT_BUDGET,
                    after=mark,
                    what=f"{events.gw.base} leaving connected after the sign-out through replica2",
                )
            print(f"replicas 1 and 3 signed out {time.monotonic() - signed_out:.2f} s after replica2")
        for gw in gateways:
            auth = (await view(http, gw.base)).get("auth") or {}
            assert auth.get("status") in {"needsReauth", "waitingForUser", "discovering", "registering"}, auth

        # Signing in again through replica1's URL, the browser's return reaches replica3 instead, as a balancer
        # in front of them may send it: replica3 finishes the sign-in replica1 started, and all connect.
        again = await authorization_url(http, first.base, other_than=url)
        visit = await browser_sign_in(again, follow_to_client=False)
        assert visit.redirect_url and visit.redirect_url.startswith(f"{first.base}/oauth/callback?"), visit.hops
        async with admin_events(first) as first_events, admin_events(others[0]) as second_events:
            page = await open_in_browser(visit.redirect_url.replace(first.base, others[1].base, 1))
            assert page.status_code == 200, f"replica3's callback page: HTTP {page.status_code}: {page.text[:300]}"
            for events in (first_events, second_events):
                await events.reach_state(SERVER, "connected", CONNECT_TIMEOUT)
        async with mcp_session(first.url, mode="legacy", label="replica1") as one:
            await one.wait_for_tools({f"{SERVER}__whoami"})
            started_as = dict(parse_qsl(urlsplit(again).query))["client_id"]
            assert (await whoami(one))["client_id"] == started_as, "the code was redeemed as replica1's client"
        stats = peer.stats()
        assert stats["token_requests"].get("authorization_code") == {"ok": 2}, stats["token_requests"]

    for gw in gateways:
        assert leaked_secrets(gw.log_text(), guarded_secrets(peer)) == [], f"{gw.base}: the log holds a secret"


def guarded_secrets(peer: OAuthServer) -> list[str]:
    """What must never leave the gateway in clear: every token and client secret the peer minted, the key."""
    minted = peer.secrets()
    return [*minted["access_tokens"], *minted["refresh_tokens"], *minted["client_secrets"], SECRET_KEY]


def assert_tokens_sealed(pg: PostgresServer, peer: OAuthServer) -> None:
    stored = pg.psql(f"SELECT encode(body, 'escape') FROM yrden_state WHERE name = 'secret:oauth.{SERVER}.tokens'")
    assert stored.strip(), "the tokens are not in the store"
    assert leaked_secrets(stored, guarded_secrets(peer)) == [], "a secret is stored in clear"
