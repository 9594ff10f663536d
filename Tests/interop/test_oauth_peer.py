"""The OAuth-protected peer (servers/oauth_server.py) is correct on its own, checked without Yrden.

The official SDK's OAuth client (``mcp.client.auth.OAuthClientProvider``) signs in to it through the
scripted browser of ``oauth_peer.py``; raw HTTP checks what a client library would hide: the discovery
documents, the 401 challenge, PKCE and resource checks, and the control endpoints the gateway tests rely
on. If these fail, a gateway OAuth test failing says nothing about the gateway.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, OAuthFlowError, PKCEParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

from harness import JSON_AND_SSE, LEGACY_VERSION, free_port, text_of
from oauth_peer import BrowserVisit, OAuthServer, browser_sign_in, leaked_secrets, oauth_server  # noqa: F401

SCOPES = ["mcp:read", "mcp:write"]
REQUEST_TIMEOUT = 20.0


# ---------------------------------------------------------------------------
# The SDK client, with in-memory storage and the scripted browser as its user


@dataclass
class MemoryTokenStorage:
    tokens: OAuthToken | None = None
    client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


@dataclass
class ScriptedUser:
    """The SDK's redirect and callback handlers: the browser opens the URL, the redirect is read back.

    The client's ``redirect_uri`` is never opened (nothing listens there): the browser stops at it, as a
    desktop app's loopback listener would receive it, and the callback handler reads code, state and iss
    from it. An ``error`` in the redirect fails the flow, as any client would.
    """

    redirect_uri: str = field(default_factory=lambda: f"http://127.0.0.1:{free_port()}/callback")
    visits: list[BrowserVisit] = field(default_factory=list)

    async def open_browser(self, authorization_url: str) -> None:
        self.visits.append(await browser_sign_in(authorization_url, follow_to_client=False))

    async def receive_callback(self) -> AuthorizationCodeResult:
        visit = self.visits[-1]
        assert visit.redirect_url is not None, f"the authorization server did not redirect back: {visit}"
        assert visit.redirect_url.startswith(self.redirect_uri + "?"), visit.redirect_url
        if visit.error is not None:
            raise OAuthFlowError(f"authorization failed: {visit.error}: {visit.params.get('error_description')}")
        assert visit.code is not None, f"no code in {visit.redirect_url}"
        return AuthorizationCodeResult(code=visit.code, state=visit.state, iss=visit.iss)


@asynccontextmanager
async def sdk_client(server: OAuthServer, user: ScriptedUser, storage: MemoryTokenStorage) -> AsyncIterator[Client]:
    provider = OAuthClientProvider(
        server_url=server.url,
        client_metadata=OAuthClientMetadata(
            client_name="yrden-interop-sdk-client",
            redirect_uris=[AnyUrl(user.redirect_uri)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage=storage,
        redirect_handler=user.open_browser,
        callback_handler=user.receive_callback,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(REQUEST_TIMEOUT, read=60.0)) as http:
        async with Client(
            streamable_http_client(server.url, http_client=http), read_timeout_seconds=REQUEST_TIMEOUT
        ) as client:
            yield client


async def whoami(client: Client) -> dict[str, Any]:
    result = await client.call_tool("whoami", {})
    assert not result.is_error, f"whoami failed: {text_of(result)}"
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


def flow_errors(error: BaseException) -> list[OAuthFlowError]:
    """The ``OAuthFlowError``s in ``error``, looking inside exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return [found for member in error.exceptions for found in flow_errors(member)]
    return [error] if isinstance(error, OAuthFlowError) else []


def messages_of(error: BaseException) -> str:
    """The messages of ``error``, its causes and, for a group, its members."""
    parts = [f"{type(error).__name__}: {error}"]
    if isinstance(error, BaseExceptionGroup):
        parts += [messages_of(e) for e in error.exceptions]
    for linked in (error.__cause__, error.__context__):
        if linked is not None and linked is not error:
            parts.append(messages_of(linked))
    return "\n".join(parts)


# ---------------------------------------------------------------------------
# Raw OAuth, for what the SDK client hides


@dataclass
class RawClient:
    """A client registered by hand through dynamic registration, driving the endpoints itself."""

    server: OAuthServer
    http: httpx2.AsyncClient
    client_id: str
    client_secret: str
    redirect_uri: str

    @classmethod
    async def register(
        cls, server: OAuthServer, http: httpx2.AsyncClient, redirect_uri: str | None = None
    ) -> RawClient:
        redirect_uri = redirect_uri or f"http://127.0.0.1:{free_port()}/callback"
        response = await http.post(
            f"{server.base}/register",
            json={
                "client_name": "raw",
                "redirect_uris": [redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
            },
        )
        assert response.status_code == 201, response.text
        info = response.json()
        return cls(server, http, info["client_id"], info["client_secret"], redirect_uri)

    def authorization_url(self, pkce: PKCEParameters, **overrides: str | None) -> str:
        params: dict[str, str | None] = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "state": "raw-state",
            "code_challenge": pkce.code_challenge,
            "code_challenge_method": "S256",
            "resource": self.server.url,
            "scope": " ".join(SCOPES),
        }
        params.update(overrides)
        query = httpx2.QueryParams({k: v for k, v in params.items() if v is not None})
        return f"{self.server.base}/authorize?{query}"

    async def token(self, **form: str | None) -> httpx2.Response:
        data = {"client_id": self.client_id, "client_secret": self.client_secret, "resource": self.server.url}
        data.update(form)  # type: ignore[arg-type]
        sent = {k: v for k, v in data.items() if v is not None}
        return await self.http.post(f"{self.server.base}/token", data=sent)

    async def sign_in(self) -> dict[str, Any]:
        pkce = PKCEParameters.generate()
        visit = await browser_sign_in(self.authorization_url(pkce), follow_to_client=False)
        assert visit.code, visit
        response = await self.token(
            grant_type="authorization_code",
            code=visit.code,
            redirect_uri=self.redirect_uri,
            code_verifier=pkce.code_verifier,
        )
        assert response.status_code == 200, response.text
        return response.json()


async def initialize_status(server: OAuthServer, http: httpx2.AsyncClient, access_token: str | None) -> int:
    """The HTTP status of an ``initialize`` POST to /mcp with this bearer token (or none)."""
    headers = {"Accept": JSON_AND_SSE, "Content-Type": "application/json"}
    if access_token is not None:
        headers["Authorization"] = f"Bearer {access_token}"
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    response = await http.post(server.url, json=body, headers=headers)
    return response.status_code


@contextmanager
def callback_page() -> Iterator[tuple[str, list[str]]]:
    """A client's loopback callback: answers "signed in" to any GET; yields its URL and the paths it got."""
    received: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            received.append(self.path)
            body = b"signed in, you can close this window"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/callback", received
    finally:
        httpd.shutdown()
        httpd.server_close()


# ---------------------------------------------------------------------------
# Tests


async def test_challenge_and_discovery_documents(oauth_server) -> None:
    server: OAuthServer = oauth_server()
    async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
        assert await initialize_status(server, http, None) == 401
        challenge = await http.post(server.url, json={}, headers={"Accept": JSON_AND_SSE})
        www_authenticate = challenge.headers.get("www-authenticate", "")
        assert www_authenticate.startswith("Bearer "), www_authenticate
        assert f'resource_metadata="{server.resource_metadata_url}"' in www_authenticate
        assert await initialize_status(server, http, "peer_at_forged") == 401

        prm = (await http.get(server.resource_metadata_url)).json()
        assert prm["resource"] == server.url
        assert prm["authorization_servers"] == [server.issuer]
        assert prm["scopes_supported"] == SCOPES

        asm = (await http.get(server.authorization_server_metadata_url)).json()
        assert asm["issuer"] == server.issuer
        assert asm["authorization_endpoint"] == f"{server.base}/authorize"
        assert asm["token_endpoint"] == f"{server.base}/token"
        assert asm["registration_endpoint"] == f"{server.base}/register"
        assert asm["revocation_endpoint"] == f"{server.base}/revoke"
        assert asm["code_challenge_methods_supported"] == ["S256"]
        assert asm["scopes_supported"] == SCOPES
        assert set(asm["grant_types_supported"]) >= {"authorization_code", "refresh_token"}
        assert asm["authorization_response_iss_parameter_supported"] is True

    stats = server.stats()
    assert stats["mcp_authorization"] == {"missing": 2, "unknown": 1}


async def test_sdk_client_signs_in_through_the_browser_and_calls_tools(oauth_server) -> None:
    server: OAuthServer = oauth_server()
    user, storage = ScriptedUser(), MemoryTokenStorage()
    async with sdk_client(server, user, storage) as client:
        me = await whoami(client)
        echoed = await client.call_tool("echo", {"text": "behind oauth"})

    assert storage.client_info is not None and storage.tokens is not None
    assert me == {"client_id": storage.client_info.client_id, "scopes": SCOPES}
    assert text_of(echoed) == "behind oauth"
    assert len(user.visits) == 1, "one sign-in"
    visit = user.visits[0]
    assert visit.iss == server.issuer
    assert visit.state and visit.code and visit.code.startswith("peer_code_")
    assert visit.hops[0].startswith(f"{server.base}/authorize?")

    stats = server.stats()
    assert stats["registrations"] == 1
    assert stats["clients"][0]["client_name"] == "yrden-interop-sdk-client"
    assert stats["clients"][0]["redirect_uris"] == [user.redirect_uri]
    assert stats["authorizations"] == 1
    assert stats["code_challenge_methods"] == {"S256": 1}
    assert stats["last_authorize_resource"] == server.url
    assert stats["last_token_resource"] == server.url
    assert stats["last_scope_requested"] == " ".join(SCOPES)
    assert stats["token_requests"] == {"authorization_code": {"ok": 1}}
    assert stats["token_issues"] == 1 and stats["refreshes"] == 0
    assert stats["mcp_authorization"]["missing"] >= 1, "the SDK's first request carries no token"
    assert stats["mcp_authorization"]["valid"] >= 2
    assert stats["last_mcp_authorization"]["client_id"] == storage.client_info.client_id

    minted = server.all_secret_values()
    assert storage.tokens.access_token in minted and storage.tokens.refresh_token in minted
    assert leaked_secrets(server.log_text(), minted) == [], "the peer's own log must not hold its secrets"


async def test_sdk_client_refreshes_a_short_lived_access_token(oauth_server) -> None:
    server: OAuthServer = oauth_server(access_token_ttl=3)
    user, storage = ScriptedUser(), MemoryTokenStorage()
    async with sdk_client(server, user, storage) as client:
        first = await whoami(client)
        first_token = storage.tokens.access_token if storage.tokens else None
        await anyio.sleep(4)
        second = await whoami(client)

    assert first == second
    assert storage.tokens is not None and storage.tokens.access_token != first_token
    assert len(user.visits) == 1, "the refresh needs no second sign-in"
    stats = server.stats()
    assert stats["refreshes"] == 1
    assert stats["token_requests"]["refresh_token"] == {"ok": 1}
    assert stats["last_mcp_authorization"] == {
        "status": "valid",
        "client_id": first["client_id"],
        "grant": "refresh_token",
    }
    assert stats["authorizations"] == 1


async def test_denied_sign_in_fails_the_sdk_flow_with_access_denied(oauth_server) -> None:
    server: OAuthServer = oauth_server(deny=True)
    user, storage = ScriptedUser(), MemoryTokenStorage()
    with pytest.raises(BaseException) as failure:  # the SDK's task groups wrap it in an ExceptionGroup
        async with sdk_client(server, user, storage) as client:
            await whoami(client)

    assert any("access_denied" in str(e) for e in flow_errors(failure.value)), messages_of(failure.value)
    assert len(user.visits) == 1
    visit = user.visits[0]
    assert visit.error == "access_denied" and visit.code is None
    assert visit.state, "the error redirect carries the client's state"
    assert visit.iss == server.issuer
    assert storage.tokens is None
    stats = server.stats()
    assert stats["denials"] == 1 and stats["authorizations"] == 0 and stats["token_issues"] == 0


async def test_authorization_requires_s256_and_this_resource(oauth_server) -> None:
    server: OAuthServer = oauth_server()
    async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
        raw = await RawClient.register(server, http)
        pkce = PKCEParameters.generate()

        async def redirect_for(**overrides: str | None) -> BrowserVisit:
            return await browser_sign_in(raw.authorization_url(pkce, **overrides), follow_to_client=False)

        no_method = await redirect_for(code_challenge_method=None)
        assert no_method.error == "invalid_request" and no_method.state == "raw-state"
        assert no_method.iss == server.issuer, "error redirects name the issuer too"
        assert (await redirect_for(code_challenge_method="plain")).error == "invalid_request"
        assert (await redirect_for(resource=f"{server.base}/elsewhere")).error == "invalid_target"
        assert (await redirect_for(resource=None)).error == "invalid_target"

        visit = await redirect_for()
        assert visit.code and visit.state == "raw-state" and visit.iss == server.issuer
        exchange = {"grant_type": "authorization_code", "code": visit.code, "redirect_uri": raw.redirect_uri}
        wrong_verifier = await raw.token(**exchange, code_verifier=PKCEParameters.generate().code_verifier)
        assert (wrong_verifier.status_code, wrong_verifier.json()["error"]) == (400, "invalid_grant")
        wrong_resource = await raw.token(**exchange, code_verifier=pkce.code_verifier, resource=f"{server.base}/x")
        assert (wrong_resource.status_code, wrong_resource.json()["error"]) == (400, "invalid_target")
        good = await raw.token(**exchange, code_verifier=pkce.code_verifier)
        assert good.status_code == 200, good.text
        tokens = good.json()
        assert tokens["token_type"] == "Bearer" and tokens["expires_in"] == 3600
        assert tokens["scope"] == " ".join(SCOPES) and tokens["refresh_token"].startswith("peer_rt_")
        again = await raw.token(**exchange, code_verifier=pkce.code_verifier)
        assert (again.status_code, again.json()["error"]) == (400, "invalid_grant"), "a code works once"
        assert await initialize_status(server, http, tokens["access_token"]) == 200

    stats = server.stats()
    assert stats["code_challenge_methods"] == {"(none)": 1, "plain": 1, "S256": 3}
    assert stats["authorize_resources"][server.url] == 3
    assert stats["authorizations"] == 1
    assert stats["token_requests"] == {"authorization_code": {"failed": 3, "ok": 1}}


async def test_control_endpoints_expire_rotate_and_revoke_tokens(oauth_server) -> None:
    server: OAuthServer = oauth_server()
    async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
        raw = await RawClient.register(server, http)
        tokens = await raw.sign_in()
        assert await initialize_status(server, http, tokens["access_token"]) == 200

        assert server.expire_access_tokens() == 1
        assert await initialize_status(server, http, tokens["access_token"]) == 401
        assert server.stats()["last_mcp_authorization"]["status"] == "expired"

        refreshed = await raw.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"])
        assert refreshed.status_code == 200, refreshed.text
        new = refreshed.json()
        assert new["access_token"] != tokens["access_token"] and new["refresh_token"] != tokens["refresh_token"]
        assert await initialize_status(server, http, new["access_token"]) == 200
        reused = await raw.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"])
        assert (reused.status_code, reused.json()["error"]) == (400, "invalid_grant"), "refresh tokens rotate"

        assert server.revoke_refresh_tokens() == 1
        revoked = await raw.token(grant_type="refresh_token", refresh_token=new["refresh_token"])
        assert (revoked.status_code, revoked.json()["error"]) == (400, "invalid_grant")
        assert await initialize_status(server, http, new["access_token"]) == 200, "access tokens live on"

        server.set_deny(True)
        denied = await browser_sign_in(raw.authorization_url(PKCEParameters.generate()), follow_to_client=False)
        assert denied.error == "access_denied"
        server.set_deny(False)
        assert (await raw.sign_in())["access_token"].startswith("peer_at_")

    stats = server.stats()
    assert stats["refreshes"] == 1 and stats["refresh_failures"] == 2
    assert stats["last_token_error"] == {"grant_type": "refresh_token", "status": 400, "error": "invalid_grant"}
    assert stats["mcp_authorization"] == {"valid": 3, "expired": 1}
    assert stats["denials"] == 1 and stats["authorizations"] == 2


async def test_a_reused_refresh_token_revokes_what_was_issued_from_it_when_switched_on(oauth_server) -> None:
    server: OAuthServer = oauth_server(revoke_reused_refresh_tokens=True)
    async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
        raw = await RawClient.register(server, http)
        tokens = await raw.sign_in()
        first = (await raw.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"])).json()
        second = (await raw.token(grant_type="refresh_token", refresh_token=first["refresh_token"])).json()
        assert await initialize_status(server, http, second["access_token"]) == 200

        reused = await raw.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"])
        assert (reused.status_code, reused.json()["error"]) == (400, "invalid_grant")
        # Everything issued from the reused token since is dead: the live pair and the rotated one.
        assert await initialize_status(server, http, second["access_token"]) == 401
        live = await raw.token(grant_type="refresh_token", refresh_token=second["refresh_token"])
        assert (live.status_code, live.json()["error"]) == (400, "invalid_grant")

    stats = server.stats()
    assert stats["revoke_reused_refresh_tokens"] is True
    assert stats["reused_refresh_tokens"] == 1 and stats["refreshes"] == 2
    assert stats["live"] == {"access_tokens": 1, "refresh_tokens": 0}, "only the first sign-in's access token lives"


async def test_two_peers_sign_in_at_the_same_time(oauth_server) -> None:
    servers: list[OAuthServer] = [oauth_server(), oauth_server()]
    results: dict[int, tuple[dict[str, Any], MemoryTokenStorage]] = {}

    async def sign_in(index: int) -> None:
        storage = MemoryTokenStorage()
        async with sdk_client(servers[index], ScriptedUser(), storage) as client:
            results[index] = (await whoami(client), storage)

    async with anyio.create_task_group() as tg:
        for index in range(len(servers)):
            tg.start_soon(sign_in, index)

    for index, server in enumerate(servers):
        me, storage = results[index]
        assert storage.client_info is not None and me["client_id"] == storage.client_info.client_id
        assert server.stats()["registrations"] == 1
    assert results[0][0]["client_id"] != results[1][0]["client_id"]


async def test_knobs_without_iss_and_with_required_scopes(oauth_server) -> None:
    server: OAuthServer = oauth_server(iss=False, required_scopes="mcp:write")
    async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
        asm = (await http.get(server.authorization_server_metadata_url)).json()
        assert "authorization_response_iss_parameter_supported" not in asm
        raw = await RawClient.register(server, http)
        pkce = PKCEParameters.generate()
        visit = await browser_sign_in(raw.authorization_url(pkce, scope="mcp:read"), follow_to_client=False)
        assert visit.code and visit.iss is None
        exchange = {"grant_type": "authorization_code", "code": visit.code, "redirect_uri": raw.redirect_uri}
        read_only = (await raw.token(**exchange, code_verifier=pkce.code_verifier)).json()
        assert read_only["scope"] == "mcp:read"
        assert await initialize_status(server, http, read_only["access_token"]) == 403
        assert await initialize_status(server, http, (await raw.sign_in())["access_token"]) == 200


async def test_browser_follows_the_redirect_to_the_client_callback(oauth_server) -> None:
    server: OAuthServer = oauth_server()
    with callback_page() as (callback_url, received):
        async with httpx2.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
            raw = await RawClient.register(server, http, redirect_uri=callback_url)
            visit = await browser_sign_in(raw.authorization_url(PKCEParameters.generate()))
    assert visit.reached_client and visit.final_url == visit.redirect_url
    assert (visit.final_status, visit.final_text) == (200, "signed in, you can close this window")
    assert len(received) == 1 and received[0].startswith("/callback?")
    assert visit.code is not None and visit.code in received[0]
