"""Yrden signing in to OAuth-protected upstreams (servers/oauth_server.py), as a user and an operator would.

Each test runs the OAuth peer (authorization server and MCP resource in one process) behind a real gateway
whose entry says ``"auth": {"type": "oauth"}``, with ``--data-dir`` in the test's tmp dir and an admin
token. The user is the scripted browser of ``oauth_peer.py``: it opens the authorization URL the gateway
shows in its admin API (or that ``yrden login`` prints) and follows the redirects back to the gateway's own
``GET /oauth/callback``. What the peer saw (``stats()``) says what the gateway did on the wire; the admin API
and ``/mcp`` say what a user sees. Every test ends by checking that no token or client secret the peer minted
reached the gateway's log, an admin API answer or the CLI's output.
"""

from __future__ import annotations

import json
import re
import stat
import subprocess
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx2
import pytest
from mcp import MCPError

import harness
from harness import Gateway, McpSession, await_until, clean_env, free_port, mcp_session, start_gateway, text_of
from oauth_peer import (  # noqa: F401 (oauth_server is a fixture)
    OAuthServer,
    browser_sign_in,
    leaked_secrets,
    oauth_server,
    open_in_browser,
    with_query,
)

ADMIN_TOKEN = "oauth-gw-admin-2c7d41"
SECRET_KEY = "5f0c2a9e41b7d38c6e1f0a2b4c6d8e0f1a3b5c7d9e0f2a4b6c8d0e1f3a5b7c9d"
SIGN_IN_TIMEOUT = 20.0  # from the gateway's start to an authorization URL in its admin API
CONNECT_TIMEOUT = 30.0  # from the browser's return to the server connected
CALL_TIMEOUT = 20.0
AUTH_STATUSES = {"discovering", "registering", "waitingForUser", "exchangingCode", "complete", "failed", "needsReauth"}
TOKEN_KINDS = ("access_tokens", "refresh_tokens", "client_secrets")  # what must never leave the gateway


# ---------------------------------------------------------------------------
# The rig: peers, gateways, the admin API, and everything they showed


@dataclass
class Rig:
    """Starts gateways for OAuth peers and keeps every text a user could see, to check it for secrets."""

    yrden: Path
    root: Path
    factory: Callable[..., Gateway]
    http: httpx2.AsyncClient
    peers: list[OAuthServer] = field(default_factory=list)
    gateways: list[Gateway] = field(default_factory=list)
    restarted: list[Gateway] = field(default_factory=list)  # started here (not by the fixture): stopped here
    seen: list[str] = field(default_factory=list)  # admin API answers, CLI output
    earlier_logs: list[str] = field(default_factory=list)  # logs a restart on the same workdir overwrote
    env: dict[str, str] = field(default_factory=dict)
    args: tuple[str, ...] = ()

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def start(
        self, servers: dict[str, OAuthServer], *, env: dict[str, str] | None = None, log_level: str | None = None
    ) -> Gateway:
        """A gateway with one OAuth entry per peer, the rig's data dir and the admin token."""
        self.peers.extend(p for p in servers.values() if p not in self.peers)
        config = {"mcpServers": {sid: {"url": peer.url, "auth": {"type": "oauth"}} for sid, peer in servers.items()}}
        self.env = {"YRDEN_ADMIN_TOKEN": ADMIN_TOKEN, **(env or {})}
        self.args = ("--data-dir", str(self.data_dir), *(("--log-level", log_level) if log_level else ()))
        gw = self.factory(config, extra_args=self.args, env=self.env)
        self.gateways.append(gw)
        return gw

    def restart(self, gw: Gateway) -> Gateway:
        """Stop ``gw`` and start the gateway again on the same workdir, config file and data dir."""
        assert gw.stop() == 0, f"yrden exited with status {gw.proc.returncode} on SIGTERM"
        self.earlier_logs.append(gw.log_text())
        config = json.loads(gw.config_path.read_text())
        again = start_gateway(self.yrden, config, gw.workdir, extra_args=self.args, env=self.env)
        self.restarted.append(again)
        self.gateways.append(again)
        return again

    # -- the admin API

    async def api(self, gw: Gateway, method: str, path: str, body: Any = None) -> httpx2.Response:
        response = await self.http.request(
            method,
            f"{gw.base}/api/v1{path}",
            json=body,
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        )
        self.seen.append(response.text)
        return response

    async def server(self, gw: Gateway, sid: str) -> dict[str, Any]:
        response = await self.api(gw, "GET", f"/servers/{sid}")
        assert response.status_code == 200, f"GET /servers/{sid}: HTTP {response.status_code}: {response.text[:500]}"
        return response.json()

    async def wait_view(
        self, gw: Gateway, sid: str, predicate: Callable[[dict[str, Any]], bool], what: str, timeout: float
    ) -> dict[str, Any]:
        """Poll ``GET /servers/{sid}`` until ``predicate`` holds; return that view."""
        last: dict[str, Any] = {}

        async def reached() -> dict[str, Any] | None:
            nonlocal last
            last = await self.server(gw, sid)
            return last if predicate(last) else None

        try:
            return await await_until(reached, timeout, interval=0.1)
        except TimeoutError:
            raise AssertionError(
                f"{sid}: not {what} within {timeout:.0f}s; last view: state={last.get('state')!r} "
                f"auth={last.get('auth')!r} lastError={last.get('lastError')!r}"
            ) from None

    async def authorization_url(self, gw: Gateway, sid: str, *, other_than: str | None = None) -> str:
        """The URL the server waits for the user to open (state ``authenticating``, ``waitingForUser``)."""

        def waiting(view: dict[str, Any]) -> bool:
            auth = view.get("auth") or {}
            return (
                view["state"] == "authenticating"
                and auth.get("status") == "waitingForUser"
                and bool(auth.get("authorizationURL"))
                and auth.get("authorizationURL") != other_than
            )

        what = "waiting for a sign-in" + (" with a new authorization URL" if other_than else "")
        view = await self.wait_view(gw, sid, waiting, what, SIGN_IN_TIMEOUT)
        return view["auth"]["authorizationURL"]

    async def wait_connected(self, gw: Gateway, sid: str, timeout: float = CONNECT_TIMEOUT) -> dict[str, Any]:
        return await self.wait_view(gw, sid, lambda v: v["state"] == "connected", "connected", timeout)

    async def sign_in(self, gw: Gateway, sid: str) -> None:
        """The user opens the authorization URL; the browser ends on the gateway's callback page."""
        url = await self.authorization_url(gw, sid)
        visit = await browser_sign_in(url)
        assert visit.reached_client and visit.final_url.startswith(f"{gw.base}/oauth/callback?"), visit.hops
        assert visit.final_status == 200, f"callback page: HTTP {visit.final_status}: {visit.final_text[:300]}"
        self.seen.append(visit.final_text)
        await self.wait_connected(gw, sid)

    # -- what must not leak

    def assert_no_leaks(self) -> None:
        """No access or refresh token or client secret of any peer, nor the admin token or the secret key, in a
        gateway log or anything a user saw."""
        minted = [p.secrets() for p in self.peers]
        secrets = {kind: [v for m in minted for v in m.get(kind, [])] for kind in (*TOKEN_KINDS, "codes")}
        guarded = [ADMIN_TOKEN, SECRET_KEY, *(v for kind in TOKEN_KINDS for v in secrets[kind])]
        logs = [*self.earlier_logs, *(gw.log_text() for gw in self.gateways)]
        for index, log in enumerate(logs):
            assert leaked_secrets(log, guarded) == [], f"gateway log #{index} holds secrets"
        for text in self.seen:
            assert leaked_secrets(text, guarded) == [], f"an answer the user saw holds secrets: {text[:200]!r}"
        codes = [c for log in logs for c in leaked_secrets(log, secrets["codes"])]
        if codes:
            warnings.warn(f"authorization codes appear in the gateway log: {codes}", stacklevel=2)


# Set up after oauth_server, so its gateways stop before the peers they hold streams to: a peer stopped first waits
# out its graceful shutdown (10 s) for the gateway's open connections.
@pytest.fixture
async def rig(yrden: Path, tmp_path: Path, oauth_server, gateway) -> AsyncIterator[Rig]:
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=60.0)) as http:
        the_rig = Rig(yrden=yrden, root=tmp_path, factory=gateway, http=http)
        try:
            yield the_rig
        finally:
            for gw in the_rig.restarted:
                gw.stop()
                harness.stop_quietly(gw.children_at_stop)


# ---------------------------------------------------------------------------
# Small helpers


def query_of(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


def data_files(data_dir: Path) -> list[Path]:
    return sorted(p for p in data_dir.rglob("*") if p.is_file()) if data_dir.exists() else []


def files_holding(data_dir: Path, values: list[str]) -> list[str]:
    """The data dir's files whose bytes contain any of ``values`` in clear."""
    needles = [v.encode() for v in values if v]
    return [str(p.relative_to(data_dir)) for p in data_files(data_dir) if any(n in p.read_bytes() for n in needles)]


def loose_modes(data_dir: Path) -> list[str]:
    """Files in the data dir whose mode is not 0600, and the dir itself when others may enter it."""
    modes = {p: stat.S_IMODE(p.stat().st_mode) for p in data_files(data_dir)}
    loose = [f"{p.relative_to(data_dir)}: {oct(mode)}" for p, mode in modes.items() if mode != 0o600]
    if data_dir.exists() and stat.S_IMODE(data_dir.stat().st_mode) & 0o077:
        loose.append(f"{data_dir}: {oct(stat.S_IMODE(data_dir.stat().st_mode))}")
    return loose


def tokens_of(peer: OAuthServer) -> list[str]:
    secrets = peer.secrets()
    return [*secrets["access_tokens"], *secrets["refresh_tokens"]]


def client_id_of(peer: OAuthServer) -> str:
    clients = peer.stats()["clients"]
    assert clients, "the gateway never registered with the peer"
    return clients[-1]["client_id"]


async def whoami(session: McpSession, sid: str) -> dict[str, Any]:
    """``<sid>__whoami`` through the gateway: the client_id and scopes of the token the peer received."""
    with anyio.fail_after(CALL_TIMEOUT):
        result = await session.client.call_tool(f"{sid}__whoami", {})
    assert not result.is_error, f"{sid}__whoami failed: {text_of(result)}"
    payload = result.structured_content
    if not isinstance(payload, dict):
        payload = json.loads(text_of(result))
    assert set(payload) >= {"client_id", "scopes"}, payload
    return payload


async def call_failure(session: McpSession, name: str) -> str:
    """Call ``name``, which must fail (a JSON-RPC error or an error result); returns what the client saw."""
    with anyio.fail_after(CALL_TIMEOUT):
        try:
            result = await session.client.call_tool(name, {})
        except MCPError as e:
            return e.error.message + ("" if e.error.data is None else f" {e.error.data}")
    assert result.is_error, f"{name} succeeded: {text_of(result)!r}"
    return text_of(result)


def assert_redirect_uri_and_pkce(url: str, gw: Gateway, peer: OAuthServer) -> None:
    params = query_of(url)
    assert url.startswith(f"{peer.base}/authorize?"), url
    assert params.get("response_type") == "code" and params.get("client_id"), params
    assert params.get("redirect_uri") == f"{gw.base}/oauth/callback", params
    assert params.get("code_challenge_method") == "S256" and params.get("code_challenge"), params
    assert params.get("resource") == peer.url, params
    assert params.get("state"), params


# ---------------------------------------------------------------------------
# Signing in


async def test_sign_in_through_the_browser_connects_the_server_and_its_tools(rig: Rig, oauth_server) -> None:
    peer: OAuthServer = oauth_server()
    gw = rig.start({"tasks": peer})

    url = await rig.authorization_url(gw, "tasks")
    view = await rig.server(gw, "tasks")
    assert view["auth"]["expiresAt"], view["auth"]
    assert_redirect_uri_and_pkce(url, gw, peer)
    assert url in gw.log_text(), "the authorization URL was not logged for the operator"

    visit = await browser_sign_in(url)
    assert visit.redirect_url and visit.redirect_url.startswith(f"{gw.base}/oauth/callback?"), visit.hops
    assert visit.reached_client and visit.code and visit.iss == peer.issuer
    assert visit.final_status == 200 and visit.final_text.strip(), (visit.final_status, visit.final_text[:300])
    rig.seen.append(visit.final_text)

    view = await rig.wait_connected(gw, "tasks")
    assert view["auth"]["status"] == "complete", view["auth"]
    async with mcp_session(gw.url, mode="legacy") as session:
        assert {"tasks__whoami", "tasks__echo"} <= await session.wait_for_tools({"tasks__whoami", "tasks__echo"})
        me = await whoami(session, "tasks")
        with anyio.fail_after(CALL_TIMEOUT):
            echoed = await session.client.call_tool("tasks__echo", {"text": "through the gateway"})
        assert text_of(echoed) == "through the gateway"

    stats = peer.stats()
    assert stats["registrations"] == 1, stats["clients"]
    assert stats["clients"][0]["redirect_uris"] == [f"{gw.base}/oauth/callback"], stats["clients"]
    assert me["client_id"] == stats["clients"][0]["client_id"]
    assert stats["authorizations"] == 1 and stats["code_challenge_methods"] == {"S256": 1}
    assert stats["authorize_resources"] == {peer.url: 1} and stats["last_token_resource"] == peer.url
    assert stats["token_requests"]["authorization_code"] == {"ok": 1}, stats["token_requests"]
    assert stats["last_mcp_authorization"]["status"] == "valid"

    assert files_holding(rig.data_dir, tokens_of(peer)), f"no token in {rig.data_dir}: {data_files(rig.data_dir)}"
    assert loose_modes(rig.data_dir) == [], "token files must be mode 0600 (their directory 0700)"
    rig.assert_no_leaks()


async def test_two_servers_sign_in_at_the_same_time(rig: Rig, oauth_server) -> None:
    peers: dict[str, OAuthServer] = {"tasks": oauth_server(), "notes": oauth_server()}
    gw = rig.start(peers)
    urls = {sid: await rig.authorization_url(gw, sid) for sid in peers}
    for sid, peer in peers.items():
        assert urls[sid].startswith(f"{peer.base}/authorize?"), urls

    visits = {}

    async def user_opens(sid: str) -> None:
        visits[sid] = await browser_sign_in(urls[sid])

    async with anyio.create_task_group() as tg:
        for sid in peers:
            tg.start_soon(user_opens, sid)
    for sid, visit in visits.items():
        assert visit.reached_client and visit.final_status == 200, (sid, visit.final_status, visit.final_text[:300])
        rig.seen.append(visit.final_text)

    for sid in peers:
        await rig.wait_connected(gw, sid)
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"tasks__whoami", "notes__whoami", "tasks__echo", "notes__echo"})
        for sid, peer in peers.items():
            assert (await whoami(session, sid))["client_id"] == client_id_of(peer)
    for sid, peer in peers.items():
        stats = peer.stats()
        assert (stats["registrations"], stats["authorizations"]) == (1, 1), (sid, stats)
    rig.assert_no_leaks()


async def test_forged_and_stale_callbacks_are_refused_and_change_nothing(rig: Rig, oauth_server) -> None:
    peer: OAuthServer = oauth_server()
    gw = rig.start({"tasks": peer})
    url = await rig.authorization_url(gw, "tasks")
    visit = await browser_sign_in(url, follow_to_client=False)
    assert visit.redirect_url and not visit.reached_client and visit.code, visit.hops
    before = await rig.server(gw, "tasks")

    forged = await open_in_browser(with_query(visit.redirect_url, state="forged"))
    assert forged.status_code == 400 and forged.text.strip(), f"forged: HTTP {forged.status_code}: {forged.text[:300]}"
    after = await rig.server(gw, "tasks")
    assert (after["state"], after["auth"]) == (before["state"], before["auth"]), "a forged callback changed the server"
    assert "authorization_code" not in peer.stats()["token_requests"], "a forged callback led to a code exchange"

    good = await open_in_browser(visit.redirect_url)
    assert good.status_code == 200, f"the real callback: HTTP {good.status_code}: {good.text[:300]}"
    assert good.headers.get("content-type", "").startswith(("text/html", "text/plain")), good.headers
    rig.seen.append(good.text)
    await rig.wait_connected(gw, "tasks")
    exchanges = peer.stats()["token_requests"]

    stale = await open_in_browser(visit.redirect_url)
    assert stale.status_code == 400 and stale.text.strip(), f"stale: HTTP {stale.status_code}: {stale.text[:300]}"
    rig.seen += [forged.text, stale.text]
    view = await rig.server(gw, "tasks")
    assert view["state"] == "connected" and view["auth"]["status"] == "complete", view
    assert peer.stats()["token_requests"] == exchanges, "a stale callback led to another code exchange"
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"tasks__whoami"})
        await whoami(session, "tasks")
    rig.assert_no_leaks()


async def test_a_denied_sign_in_shows_failed_with_access_denied(rig: Rig, oauth_server) -> None:
    peer: OAuthServer = oauth_server(deny=True)
    gw = rig.start({"tasks": peer})
    visit = await browser_sign_in(await rig.authorization_url(gw, "tasks"))
    assert visit.error == "access_denied" and visit.reached_client, visit.hops
    rig.seen.append(visit.final_text)

    view = await rig.wait_view(
        gw, "tasks", lambda v: (v.get("auth") or {}).get("status") == "failed", "failed", CONNECT_TIMEOUT
    )
    assert "access_denied" in view["auth"]["reason"], view["auth"]
    assert view["state"] != "connected", view
    stats = peer.stats()
    assert stats["denials"] == 1 and stats["token_issues"] == 0, stats
    rig.assert_no_leaks()


async def test_admin_api_callback_completes_the_sign_in(rig: Rig, oauth_server) -> None:
    peer: OAuthServer = oauth_server()
    gw = rig.start({"tasks": peer})
    visit = await browser_sign_in(await rig.authorization_url(gw, "tasks"), follow_to_client=False)
    assert visit.redirect_url and visit.redirect_url.startswith(f"{gw.base}/oauth/callback?"), visit.hops
    before = await rig.server(gw, "tasks")

    callback = "/servers/tasks/auth/callback"
    forged = await rig.api(gw, "POST", callback, {"url": with_query(visit.redirect_url, state="forged")})
    assert forged.status_code == 400, f"forged state: HTTP {forged.status_code}: {forged.text[:300]}"
    after = await rig.server(gw, "tasks")
    assert (after["state"], after["auth"]) == (before["state"], before["auth"]), "a forged callback changed the server"

    done = await rig.api(gw, "POST", callback, {"url": visit.redirect_url})
    assert done.status_code == 200, f"HTTP {done.status_code}: {done.text[:500]}"
    assert done.json()["status"] == "complete", done.json()
    await rig.wait_connected(gw, "tasks")

    again = await rig.api(gw, "POST", callback, {"url": visit.redirect_url})
    assert again.status_code == 400, f"a used state: HTTP {again.status_code}: {again.text[:300]}"
    assert (await rig.server(gw, "tasks"))["state"] == "connected"
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"tasks__whoami"})
        assert (await whoami(session, "tasks"))["client_id"] == client_id_of(peer)
    assert peer.stats()["token_requests"]["authorization_code"] == {"ok": 1}
    rig.assert_no_leaks()


# ---------------------------------------------------------------------------
# Keeping the tokens


async def test_a_restart_reconnects_with_the_stored_tokens(rig: Rig, oauth_server) -> None:
    peer: OAuthServer = oauth_server()
    gw = rig.start({"tasks": peer})
    await rig.sign_in(gw, "tasks")
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"tasks__whoami"})
        first = await whoami(session, "tasks")
    signed_in = peer.stats()

    gw = rig.restart(gw)
    view = await rig.wait_connected(gw, "tasks")
    assert view["auth"]["status"] == "complete", view["auth"]
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"tasks__whoami"})
        assert await whoami(session, "tasks") == first
    stats = peer.stats()
    for key in ("registrations", "authorize_requests", "authorizations"):
        assert stats[key] == signed_in[key], f"{key}: {signed_in[key]} before the restart, {stats[key]} after"
    rig.assert_no_leaks()


async def test_an_expiring_access_token_is_refreshed_unseen(rig: Rig, oauth_server) -> None:
    peer: OAuthServer = oauth_server(access_token_ttl=3)
    gw = rig.start({"tasks": peer}, log_level="debug")  # tokens must stay out of even the debug log
    await rig.sign_in(gw, "tasks")
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"tasks__whoami"})
        first = await whoami(session, "tasks")
        await anyio.sleep(4)
        second = await whoami(session, "tasks")
        assert session.transport_errors == [], session.transport_errors

    assert second == first
    stats = peer.stats()
    refreshed = stats["token_requests"].get("refresh_token", {}).get("ok", 0)
    assert stats["refreshes"] >= 1 and refreshed >= 1, stats["token_requests"]
    last = {"status": "valid", "client_id": first["client_id"], "grant": "refresh_token"}
    assert stats["last_mcp_authorization"] == last, stats["last_mcp_authorization"]
    assert stats["authorizations"] == 1, "a refresh needs no new sign-in"
    assert (await rig.server(gw, "tasks"))["state"] == "connected"
    rig.assert_no_leaks()


async def test_a_refused_refresh_asks_for_a_new_sign_in(rig: Rig, oauth_server) -> None:
    peer: OAuthServer = oauth_server()
    gw = rig.start({"tasks": peer})
    first_url = await rig.authorization_url(gw, "tasks")
    await rig.sign_in(gw, "tasks")
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"tasks__whoami"})
        await whoami(session, "tasks")
        assert peer.revoke_refresh_tokens() >= 1 and peer.expire_access_tokens() >= 1

        message = await call_failure(session, "tasks__whoami")
        assert re.search(r"\btasks\b", message), f"the error does not name the server 'tasks': {message!r}"
        with anyio.fail_after(CALL_TIMEOUT):
            await session.client.list_tools()  # the session itself survives

        await rig.wait_view(
            gw,
            "tasks",
            lambda v: v["state"] == "authenticating"
            and (v.get("auth") or {}).get("status") in {"needsReauth", "waitingForUser"},
            "authenticating again",
            SIGN_IN_TIMEOUT,
        )
        new_url = await rig.authorization_url(gw, "tasks", other_than=first_url)
        visit = await browser_sign_in(new_url)
        assert visit.reached_client and visit.final_status == 200, (visit.final_status, visit.final_text[:300])
        await rig.wait_connected(gw, "tasks")
        await session.wait_for_tools({"tasks__whoami"})
        await whoami(session, "tasks")

    stats = peer.stats()
    assert stats["authorizations"] == 2 and stats["refresh_failures"] >= 1, stats
    rig.assert_no_leaks()


async def test_sign_out_deletes_the_stored_tokens(rig: Rig, oauth_server) -> None:
    peer: OAuthServer = oauth_server()
    gw = rig.start({"tasks": peer})
    await rig.sign_in(gw, "tasks")
    assert files_holding(rig.data_dir, tokens_of(peer)), f"no token in {rig.data_dir}: {data_files(rig.data_dir)}"

    response = await rig.api(gw, "DELETE", "/servers/tasks/tokens")
    assert response.status_code == 204, f"HTTP {response.status_code}: {response.text[:300]}"
    assert files_holding(rig.data_dir, tokens_of(peer)) == [], "tokens are still on disk after sign-out"
    view = await rig.wait_view(
        gw,
        "tasks",
        lambda v: v["state"] in {"disconnected", "authenticating"}
        and (v.get("auth") or {}).get("status") in {"needsReauth", "waitingForUser"},
        "signed out",
        CONNECT_TIMEOUT,
    )
    async with mcp_session(gw.url, mode="legacy") as session:
        names = await session.tool_names()
        assert not {n for n in names if n.startswith("tasks__")}, f"tools still listed after sign-out: {sorted(names)}"

    if view["auth"]["status"] == "needsReauth":  # signed out stays so until the operator starts a sign-in
        started = await rig.api(gw, "POST", "/servers/tasks/auth")
        assert started.status_code == 202, f"HTTP {started.status_code}: {started.text[:300]}"
        assert started.json()["status"] in AUTH_STATUSES, started.json()
    await rig.sign_in(gw, "tasks")
    assert peer.stats()["authorizations"] == 2
    assert loose_modes(rig.data_dir) == [], "token files must be mode 0600 (their directory 0700)"
    rig.assert_no_leaks()


async def test_tokens_are_encrypted_with_a_secret_key(rig: Rig, oauth_server) -> None:
    peer: OAuthServer = oauth_server()
    gw = rig.start({"tasks": peer}, env={"YRDEN_SECRET_KEY": SECRET_KEY})
    await rig.sign_in(gw, "tasks")

    stored = data_files(rig.data_dir)
    assert stored, f"nothing stored in {rig.data_dir}"
    secrets = peer.secrets()
    clear = files_holding(rig.data_dir, [*tokens_of(peer), *secrets["client_secrets"]])
    assert clear == [], f"tokens in clear although YRDEN_SECRET_KEY is set: {clear}"
    assert loose_modes(rig.data_dir) == [], "token files must be mode 0600 (their directory 0700)"

    gw = rig.restart(gw)  # the sealed files read back with the same key
    await rig.wait_connected(gw, "tasks")
    assert peer.stats()["authorizations"] == 1, "the restart needed a new sign-in"
    rig.assert_no_leaks()


# ---------------------------------------------------------------------------
# yrden login


def read_url_line(proc: subprocess.Popen[str], prefix: str, seen: list[str]) -> str | None:
    """Lines of the CLI's stdout until one starts with ``prefix`` (blocking; run in a thread)."""
    assert proc.stdout is not None
    for line in iter(proc.stdout.readline, ""):
        seen.append(line)
        if line.strip().startswith(prefix):
            return line.strip()
    return None


@pytest.fixture
def cli_processes() -> Iterator[list[subprocess.Popen[str]]]:
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


async def test_yrden_login_prints_the_url_and_exits_once_connected(rig: Rig, oauth_server, cli_processes) -> None:
    peer: OAuthServer = oauth_server()
    gw = rig.start({"tasks": peer})
    proc = subprocess.Popen(
        [str(rig.yrden), "login", "tasks", "--no-browser", "--timeout", "40"],
        env=clean_env({"YRDEN_URL": gw.base, "YRDEN_ADMIN_TOKEN": ADMIN_TOKEN}),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    cli_processes.append(proc)
    printed: list[str] = []
    with anyio.fail_after(SIGN_IN_TIMEOUT):
        url = await anyio.to_thread.run_sync(
            read_url_line, proc, f"{peer.base}/authorize?", printed, abandon_on_cancel=True
        )
    assert url, f"login printed no authorization URL; stdout: {''.join(printed)!r}; exit {proc.poll()}"
    assert_redirect_uri_and_pkce(url, gw, peer)
    assert proc.poll() is None, "login returned before the user signed in"

    visit = await browser_sign_in(url)
    assert visit.reached_client and visit.final_status == 200, (visit.final_status, visit.final_text[:300])
    out, err = await anyio.to_thread.run_sync(lambda: proc.communicate(timeout=40))
    rig.seen += [*printed, out, err, visit.final_text]
    shown = f"exit {proc.returncode}\n--- stdout ---\n{''.join(printed)}{out}\n--- stderr ---\n{err}"
    assert proc.returncode == 0, shown
    assert "tasks: signed in and connected" in out, out
    assert (await rig.server(gw, "tasks"))["state"] == "connected"
    rig.assert_no_leaks()


async def test_a_dedicated_callback_listener_takes_the_redirect(oauth_server, gateway, tmp_path: Path) -> None:
    """`gateway.oauthCallback` puts the redirect on a loopback listener of its own, which serves nothing else."""
    peer: OAuthServer = oauth_server()
    callback_port = free_port()
    config = {
        "gateway": {"oauthCallback": f"127.0.0.1:{callback_port}"},
        "mcpServers": {"tasks": {"url": peer.url, "auth": {"type": "oauth"}}},
    }
    gw = gateway(config, extra_args=("--data-dir", str(tmp_path / "data")))
    async with httpx2.AsyncClient(timeout=10) as http:

        async def authorization_url() -> str | None:
            auth = (await http.get(f"{gw.base}/api/v1/servers/tasks")).json().get("auth") or {}
            return auth.get("authorizationURL")

        url = await await_until(authorization_url, SIGN_IN_TIMEOUT, interval=0.1)
        assert query_of(url)["redirect_uri"] == f"http://127.0.0.1:{callback_port}/oauth/callback"
        assert (await http.get(f"http://127.0.0.1:{callback_port}/mcp")).status_code == 404
        assert (await http.get(f"http://127.0.0.1:{callback_port}/api/v1/servers")).status_code == 404
        visit = await browser_sign_in(url)
        assert visit.reached_client and visit.final_status == 200, (visit.final_status, visit.final_text[:300])

        async def connected() -> bool:
            return (await http.get(f"{gw.base}/api/v1/servers/tasks")).json()["state"] == "connected"

        await await_until(connected, CONNECT_TIMEOUT, interval=0.1)
