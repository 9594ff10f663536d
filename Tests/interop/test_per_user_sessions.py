"""A per-user server of the handshake era: each user's calls go over that user's own upstream session.

The OAuth peer (``servers/oauth_server.py``) serves with sessions, as the official SDK does by default, and
binds each session to the credential that opened it: a request of that session with another client's token
is answered 404, as if the session did not exist. Each user's sign-in registers its own client there, so
``stats()["mcp_sessions_by_client"]`` tells which sessions each user's token used, and ``ended_sessions``
which sessions the gateway closed (DELETE). ``"protocol": "2025-11-25"`` keeps the gateway in the handshake
era with the peer (which also speaks 2026-07-28, where every request stands on its own token).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import MCPError, types

from harness import Gateway, await_until, mcp_session, text_of
from oauth_peer import OAuthServer, browser_sign_in, leaked_secrets, oauth_server  # noqa: F401 (fixture)
from test_per_user import ADMIN_TOKEN, ALICE, BOB, client_id_of, first_call, operator_signs_in, whoami_as

CAROL = "carol-per-user-token-5e19b7"


def handshake_era_gateway(peer: OAuthServer, gateway: Any, tmp_path: Path, **env: str) -> Gateway:
    config = {
        "gateway": {"clientTokens": [ALICE, BOB, CAROL]},
        "mcpServers": {
            "tasks": {"url": peer.url, "protocol": "2025-11-25", "auth": {"type": "oauth", "perUser": True}}
        },
    }
    return gateway(
        config, extra_args=("--data-dir", str(tmp_path / "data")), env={"YRDEN_ADMIN_TOKEN": ADMIN_TOKEN, **env}
    )


async def signed_in(gw: Gateway, token: str, **options: Any) -> str:
    """The user signs in through the link of their first call; returns the client_id their calls then carry."""
    visit = await browser_sign_in(await first_call(gw, token))
    assert visit.final_status == 200 and visit.final_url.startswith(f"{gw.base}/oauth/callback?"), visit.hops
    return client_id_of(await whoami_as(gw, token, **options))


def sessions_of(peer: OAuthServer) -> dict[str, list[str]]:
    return peer.stats()["mcp_sessions_by_client"]


async def operator_client(peer: OAuthServer, gw: Gateway) -> str:
    await operator_signs_in(gw, "tasks")
    return peer.stats()["clients"][-1]["client_id"]


async def test_each_user_reaches_a_handshake_era_server_on_a_session_of_their_own_opened_with_their_token(
    oauth_server, gateway, tmp_path: Path
) -> None:
    peer: OAuthServer = oauth_server()
    gw = handshake_era_gateway(peer, gateway, tmp_path)
    operator = await operator_client(peer, gw)

    # Alice's client speaks 2026-07-28 (her call runs parked toward this server), Bob's the handshake era.
    alice = await signed_in(gw, ALICE)
    bob = await signed_in(gw, BOB, mode="legacy")
    for _ in range(2):
        assert client_id_of(await whoami_as(gw, ALICE)) == alice
        assert client_id_of(await whoami_as(gw, BOB, mode="legacy")) == bob

    sessions = sessions_of(peer)
    # One session each, opened and used with that user's token only; the server's own stays the operator's.
    assert len(sessions[alice]) == 1 and len(sessions[bob]) == 1, sessions
    assert len({sessions[alice][0], sessions[bob][0], *sessions[operator]}) == 2 + len(sessions[operator]), sessions
    assert peer.stats()["mcp_statuses"].get("404", 0) == 0, "a session was used with another user's token"

    # A third user's first call after signing in opens a third session; the others keep theirs.
    carol = await signed_in(gw, CAROL)
    sessions = sessions_of(peer)
    assert len(sessions[carol]) == 1 and sessions[carol][0] not in sessions[alice] + sessions[bob], sessions
    assert client_id_of(await whoami_as(gw, ALICE)) == alice
    assert sessions_of(peer)[alice] == sessions[alice]
    assert peer.stats()["ended_sessions"] == []
    assert leaked_secrets(gw.log_text(), peer.all_secret_values() + [ALICE, BOB, CAROL]) == []


async def test_past_the_bound_the_least_recently_used_users_session_is_closed_and_reopened_on_their_next_call(
    oauth_server, gateway, tmp_path: Path
) -> None:
    """``YRDEN_USER_SESSIONS=2``: two users' sessions per server at most."""
    peer: OAuthServer = oauth_server()
    gw = handshake_era_gateway(peer, gateway, tmp_path, YRDEN_USER_SESSIONS="2")
    await operator_client(peer, gw)
    alice = await signed_in(gw, ALICE)
    bob = await signed_in(gw, BOB)
    first_of_alice = sessions_of(peer)[alice]
    assert len(first_of_alice) == 1

    # Carol's session is the third: Alice's, the least recently used, is closed (DELETE with her token).
    carol = await signed_in(gw, CAROL)

    def ended() -> list[str]:
        return peer.stats()["ended_sessions"]

    assert await await_until(lambda: ended() or None, 10, interval=0.05) == first_of_alice
    assert client_id_of(await whoami_as(gw, BOB)) == bob
    assert len(sessions_of(peer)[bob]) == 1  # Bob's was used more recently than Alice's: it stayed

    # Alice's next call opens her a new session, which closes Carol's (now the least recently used).
    assert client_id_of(await whoami_as(gw, ALICE)) == alice
    sessions = sessions_of(peer)
    assert len(sessions[alice]) == 2 and sessions[alice][0] == first_of_alice[0], sessions
    assert await await_until(lambda: ended() if len(ended()) == 2 else None, 10, interval=0.05) == [
        first_of_alice[0],
        sessions[carol][0],
    ]
    assert peer.stats()["mcp_statuses"].get("404", 0) == 0



async def test_a_users_refused_token_on_their_own_session_is_refreshed_once_and_a_refused_refresh_closes_it(
    oauth_server, gateway, tmp_path: Path
) -> None:
    peer: OAuthServer = oauth_server()
    gw = handshake_era_gateway(peer, gateway, tmp_path)
    await operator_client(peer, gw)
    alice = await signed_in(gw, ALICE)
    bob = await signed_in(gw, BOB)
    first = sessions_of(peer)[alice]

    # The server stops taking Alice's access token: her next call succeeds after one refresh, in the same
    # session (the server binds it to her client, which a refreshed token still is).
    assert peer.revoke_client_tokens(alice) >= 1
    assert client_id_of(await whoami_as(gw, ALICE)) == alice
    assert peer.stats()["refreshes_by_client"] == {alice: 1}
    assert sessions_of(peer)[alice] == first

    # Her refresh token is refused too: her call is answered with a sign-in link, and her session is gone with
    # her tokens: once she signs in again, her next call opens a new one. Bob's calls go on in his.
    peer.revoke_client_tokens(alice, refresh=True)
    link = await first_call(gw, ALICE)
    assert link.startswith(f"{gw.base}/oauth/sign-in/"), link
    assert client_id_of(await whoami_as(gw, BOB)) == bob
    visit = await browser_sign_in(link)
    assert visit.final_status == 200, visit.hops
    assert client_id_of(await whoami_as(gw, ALICE)) == alice
    sessions = sessions_of(peer)
    assert len(sessions[alice]) == 2 and sessions[alice][0] == first[0], sessions
    assert len(sessions[bob]) == 1 and peer.stats()["refreshes_by_client"].get(bob) is None


async def test_a_users_session_the_server_drops_fails_their_call_in_flight_at_once_and_their_next_call_opens_another(
    oauth_server, gateway, tmp_path: Path
) -> None:
    """The server drops Alice's session (as when it restarts) while her call of a 60-second tool runs."""
    peer: OAuthServer = oauth_server()
    gw = handshake_era_gateway(peer, gateway, tmp_path)
    await operator_client(peer, gw)
    alice = await signed_in(gw, ALICE)
    first = sessions_of(peer)[alice]
    outcome: dict[str, Any] = {}

    async with mcp_session(gw.url, headers={"Authorization": f"Bearer {ALICE}"}, mode="legacy") as session:

        async def long_call() -> None:
            try:
                outcome["result"] = await session.client.call_tool("tasks__wait", {"seconds": 60})
            except MCPError as error:
                outcome["error"] = error.error.message

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(long_call)
                await await_until(lambda: peer.stats()["waiting"] or None, 10, interval=0.05)
                dropped_at = time.monotonic()
                assert peer.end_sessions(alice) == 1
        answered_after = time.monotonic() - dropped_at

    assert answered_after < 10, f"the call was answered {answered_after:.1f} s after its session was dropped"
    result: types.CallToolResult | None = outcome.get("result")
    shown = outcome.get("error") or (text_of(result) if result is not None and result.is_error else None)
    assert shown and "waited" not in shown, outcome
    assert client_id_of(await whoami_as(gw, ALICE)) == alice
    sessions = sessions_of(peer)[alice]
    assert len(sessions) == 2 and sessions[0] == first[0], sessions


async def test_what_the_server_asks_during_a_call_in_a_users_session_reaches_that_users_client(
    oauth_server, gateway, tmp_path: Path
) -> None:
    peer: OAuthServer = oauth_server()
    gw = handshake_era_gateway(peer, gateway, tmp_path)
    await operator_client(peer, gw)
    alice = await signed_in(gw, ALICE)
    asked: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    headers = {"Authorization": f"Bearer {ALICE}"}
    async with mcp_session(gw.url, headers=headers, mode="legacy", elicitation_callback=answer) as session:
        with anyio.fail_after(20):
            result = await session.client.call_tool("tasks__ask_name", {})
    assert not result.is_error and text_of(result) == "Hello, Ada!", text_of(result)
    assert asked == ["What is your name?"]
    assert len(sessions_of(peer)[alice]) == 1


async def test_removing_the_server_closes_every_users_session_with_it(oauth_server, gateway, tmp_path: Path) -> None:
    peer: OAuthServer = oauth_server()
    gw = handshake_era_gateway(peer, gateway, tmp_path)
    await operator_client(peer, gw)
    alice = await signed_in(gw, ALICE)
    bob = await signed_in(gw, BOB)
    sessions = sessions_of(peer)
    async with httpx2.AsyncClient(timeout=30.0) as http:
        removed = await http.delete(
            f"{gw.base}/api/v1/servers/tasks", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
        )
    assert removed.status_code in (200, 204), removed.text

    def ended() -> set[str] | None:
        gone = set(peer.stats()["ended_sessions"])
        return gone if {sessions[alice][0], sessions[bob][0]} <= gone else None

    assert await await_until(ended, 10, interval=0.05)
