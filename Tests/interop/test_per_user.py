"""Per-user upstream credentials: ``"auth": {"type": "oauth", "perUser": true}`` keeps one sign-in per Yrden
user, and each user's calls reach the upstream with that user's own token only.

The upstream is the OAuth peer (``servers/oauth_server.py``); the users are two static client tokens. The
server's own connection (handshake, lists) is signed in once by the operator, through the admin API, as for
any OAuth server. A user who has not signed in gets, on their first call, the gateway's sign-in link
(``/oauth/sign-in/<id>``, redirecting to that user's pending sign-in): in an ``elicitation/create`` request
(``mode: "url"``) when the client declared URL elicitation, else in a tool error. After the scripted browser
comes back to the gateway's callback, the user's next call works. Each sign-in registers its own client at
the peer, so ``whoami`` (the client_id of the token a call carried) tells whose token reached the upstream.
The link, ``elicitation/complete``, -32042 and a refused token are in ``test_per_user_sign_in.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import MCPError, types

from harness import Gateway, await_until, mcp_session, text_of
from oauth_peer import OAuthServer, browser_sign_in, leaked_secrets, oauth_server  # noqa: F401 (fixture)
from postgres import PostgresServer, postgres  # noqa: F401 (the fixture)
from replicas import Replicas, replicas  # noqa: F401 (the fixture)

ADMIN_TOKEN = "per-user-admin-9b2e"
ALICE = "alice-per-user-token-3c81f0"
BOB = "bob-per-user-token-77d2a4"
CALL_TIMEOUT = 20.0
URL_ELICITATION_REQUIRED = -32042


async def operator_signs_in(gw: Gateway, sid: str) -> None:
    """The server's own sign-in, as for any OAuth server: the admin API shows the URL, a browser follows it."""
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    async with httpx2.AsyncClient(timeout=30.0) as http:

        async def view() -> dict[str, Any]:
            return (await http.get(f"{gw.base}/api/v1/servers/{sid}", headers=headers)).json()

        async def waiting() -> str | None:
            auth = (await view()).get("auth") or {}
            return auth.get("authorizationURL") if auth.get("status") == "waitingForUser" else None

        url = await await_until(waiting, 20, interval=0.1)
        visit = await browser_sign_in(url)
        assert visit.final_status == 200, visit.hops

        async def connected() -> bool:
            return (await view()).get("state") == "connected"

        await await_until(connected, 30, interval=0.1)


async def sign_in_url(result_or_error: types.CallToolResult | MCPError) -> str:
    """The sign-in URL a first call was answered with (a tool error, or -32042's elicitation)."""
    if isinstance(result_or_error, MCPError):
        shown = result_or_error.error.message
    else:
        assert result_or_error.is_error, text_of(result_or_error)
        shown = text_of(result_or_error)
    urls = re.findall(r"https?://\S+", shown)
    assert urls, shown
    return urls[0]


async def first_call(gw: Gateway, token: str) -> str:
    try:
        return await sign_in_url(await whoami_as(gw, token))
    except MCPError as error:
        return await sign_in_url(error)


async def whoami_as(gw: Gateway, token: str, **options: Any) -> types.CallToolResult:
    """``tasks__whoami`` in a session of its own; a JSON-RPC error is raised as the ``MCPError`` itself."""
    try:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        async with mcp_session(gw.url, headers=headers, **options) as session:
            with anyio.fail_after(CALL_TIMEOUT):
                return await session.client.call_tool("tasks__whoami", {})
    except BaseExceptionGroup as group:
        errors = group.subgroup(MCPError)
        while errors is not None and isinstance(errors.exceptions[0], BaseExceptionGroup):
            errors = errors.exceptions[0]
        if errors is None:
            raise
        raise errors.exceptions[0] from None


def client_id_of(result: types.CallToolResult) -> str:
    assert not result.is_error, text_of(result)
    payload = result.structured_content
    return (payload if isinstance(payload, dict) else json.loads(text_of(result)))["client_id"]


async def test_two_users_each_sign_in_and_reach_the_upstream_with_their_own_token_only(
    oauth_server, gateway, tmp_path: Path
) -> None:
    peer: OAuthServer = oauth_server()
    config = {
        "gateway": {"clientTokens": [ALICE, BOB]},
        "mcpServers": {"tasks": {"url": peer.url, "auth": {"type": "oauth", "perUser": True}}},
    }
    gw = gateway(config, extra_args=("--data-dir", str(tmp_path / "data")), env={"YRDEN_ADMIN_TOKEN": ADMIN_TOKEN})
    await operator_signs_in(gw, "tasks")
    operator_client = peer.stats()["clients"][-1]["client_id"]
    calls_before = peer.stats()["mcp_authorization"].get("valid", 0)

    # Alice's client cannot be asked: her first call is a tool error carrying her sign-in URL (the SDK's
    # 2026-07-28 client raises a failed result of a tool with an output schema; either way it is no -32042).
    try:
        first = await whoami_as(gw, ALICE)
        assert first.is_error, text_of(first)
        shown = text_of(first)
    except MCPError as error:
        assert error.error.code != URL_ELICITATION_REQUIRED, error.error
        shown = error.error.message
    urls = re.findall(r"https?://\S+", shown)
    assert urls and urls[0].startswith(f"{gw.base}/oauth/sign-in/"), shown  # the gateway's link, not the AS's
    visit = await browser_sign_in(urls[0])
    assert visit.final_status == 200 and visit.final_url.startswith(f"{gw.base}/oauth/callback?"), visit.hops
    alice_client = client_id_of(await whoami_as(gw, ALICE))

    # Bob's client declared URL elicitation: his first call asks him with `elicitation/create` (mode url); he
    # accepts and signs in in the browser, and the call's answer says to call again.
    asked: list[types.ElicitRequestParams] = []

    async def sign_in_when_asked(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        visit = await browser_sign_in(str(params.url))
        assert visit.final_status == 200, visit.hops
        return types.ElicitResult(action="accept")

    first_of_bob = await whoami_as(gw, BOB, mode="legacy", elicitation_callback=sign_in_when_asked)
    assert first_of_bob.is_error and "call again" in text_of(first_of_bob), text_of(first_of_bob)
    assert [p.mode for p in asked] == ["url"], asked
    assert str(asked[0].url).startswith(f"{gw.base}/oauth/sign-in/") and str(asked[0].url) != urls[0]

    async def never_asked(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise AssertionError("asked to sign in again after signing in")

    bob_client = client_id_of(await whoami_as(gw, BOB, mode="legacy", elicitation_callback=never_asked))

    # Each user's calls carry that user's own sign-in, never the other's nor the operator's.
    assert len({operator_client, alice_client, bob_client}) == 3
    assert client_id_of(await whoami_as(gw, ALICE)) == alice_client
    assert client_id_of(await whoami_as(gw, BOB)) == bob_client
    assert peer.stats()["mcp_authorization"].get("valid", 0) > calls_before

    # Each sign-in is stored apart, under the user's digest, never the user's name or token.
    names = sorted(p.name for p in (tmp_path / "data").rglob("oauth.tasks*"))
    assert sum(".user-" in n and n.endswith(".tokens") for n in names) == 2, names
    assert not any(ALICE in n or BOB in n or "token:" in n for n in names), names
    assert leaked_secrets(gw.log_text(), peer.all_secret_values() + [ALICE, BOB]) == []


async def test_an_open_gateway_does_not_pass_its_anonymous_callers_off_as_one_user(
    oauth_server, gateway, tmp_path: Path
) -> None:
    peer: OAuthServer = oauth_server()
    config = {"mcpServers": {"tasks": {"url": peer.url, "auth": {"type": "oauth", "perUser": True}}}}
    gw = gateway(config, extra_args=("--data-dir", str(tmp_path / "data")), env={"YRDEN_ADMIN_TOKEN": ADMIN_TOKEN})
    await operator_signs_in(gw, "tasks")
    registrations = peer.stats()["registrations"]
    try:
        result = await whoami_as(gw, "")  # no token: the gateway asks for none
        shown = text_of(result) if result.is_error else "succeeded"
    except MCPError as error:
        shown = error.error.message
    assert "does not know who its callers are" in shown, shown
    # A sign-in started for "anonymous" would have registered a client of its own.
    assert peer.stats()["registrations"] == registrations, "a sign-in was started for 'anonymous'"


async def test_a_users_sign_in_through_one_replica_serves_their_calls_on_another(
    postgres: PostgresServer, oauth_server, replicas
) -> None:
    """With a shared store, a user's tokens are a row of their own (`secret:oauth.<id>.user-…`), sealed, and
    reach every replica: alice signs in through replica1 and her calls on replica2 carry her token."""
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
    async with httpx2.AsyncClient(timeout=30.0) as http:

        async def connected() -> bool:
            view = await http.get(f"{two.base}/api/v1/servers/tasks", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
            return view.json().get("state") == "connected"

        await await_until(connected, 30, interval=0.1)

    visit = await browser_sign_in(await first_call(one, ALICE))
    assert visit.final_status == 200 and visit.final_url.startswith(f"{one.base}/oauth/callback?"), visit.hops
    alice_client = client_id_of(await whoami_as(one, ALICE))

    rows = "SELECT name FROM yrden_state WHERE name LIKE 'secret:oauth.tasks.user-%.tokens'"
    await await_until(lambda: postgres.psql(rows).strip() or None, 10, interval=0.1)

    # Replica2 reads her tokens from its copy of the store; until the copy has caught up (milliseconds) a call
    # there would be asked to sign in, so the call is repeated until it carries her token (a lasting state).
    async def on_two() -> str | None:
        result = await whoami_as(two, ALICE)
        return None if result.is_error else client_id_of(result)

    assert await await_until(on_two, 10, interval=0.2) == alice_client
    names = postgres.psql(rows).split()
    assert len(names) == 1 and ALICE not in names[0], names
    stored = postgres.psql("SELECT encode(body, 'escape') FROM yrden_state WHERE name LIKE 'secret:oauth.tasks.user-%'")
    assert leaked_secrets(stored, peer.all_secret_values()) == [], "a user's token is stored in clear"
