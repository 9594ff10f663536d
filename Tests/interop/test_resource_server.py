"""Yrden as an OAuth-protected MCP server (``gateway.auth``), against the test authorization server
(``auth_server.py``): the SDK client's own OAuth flow (metadata discovered, client registered, a token for
Yrden's resource, tools called); the bad-token table (each refused 401 and nothing else); key rotation; opaque
tokens introspected; static client tokens beside; and two users whose groups reach different profiles.

One authorization server and one gateway serve the whole module.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

from harness import JSON_AND_SSE, LEGACY_VERSION, PYTHON, Gateway, clean_env, free_port, start_gateway, text_of

AUTH_SERVER = Path(__file__).parent / "auth_server.py"
STATIC = "static-client-token-5be02c71"
INTROSPECTION = ("yrden-introspector", "introspection-secret-3f9e")
TIMEOUT = 20.0


@pytest.fixture(scope="module")
def issuer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("auth-server")
    out, log = workdir / "out", workdir / "log"
    with open(out, "wb") as out_file, open(log, "wb") as log_file:
        proc = subprocess.Popen(
            [PYTHON, str(AUTH_SERVER), "--introspection-client", ":".join(INTROSPECTION)],
            stdin=subprocess.DEVNULL, stdout=out_file, stderr=log_file, env=clean_env(),
        )
    deadline = time.monotonic() + 30
    while not out.read_text().strip():
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    yield out.read_text().strip()
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def gw(yrden: Path, issuer: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    port = free_port()
    config = {
        "gateway": {
            "clientTokens": [STATIC],
            "auth": {
                "issuer": issuer,
                "audience": f"http://127.0.0.1:{port}/mcp",
                "scopes": ["mcp"],
                "introspection": {"clientId": INTROSPECTION[0], "clientSecret": INTROSPECTION[1]},
            },
        },
        "mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}},
        "profiles": {"ops": {"groups": ["ops"]}, "dev": {"users": ["bob"]}},
    }
    gateway = start_gateway(yrden, config, tmp_path_factory.mktemp("resource-gw"), port=port)
    yield gateway
    gateway.stop()


def mint(issuer: str, **claims: Any) -> str:
    answer = httpx2.post(f"{issuer}/control/mint", json=claims, timeout=TIMEOUT)
    answer.raise_for_status()
    return answer.json()["token"]


def initialize(gw: Gateway, token: str | None, path: str = "/mcp") -> httpx2.Response:
    headers = {"Content-Type": "application/json", "Accept": JSON_AND_SSE}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    return httpx2.post(f"{gw.base}{path}", json=body, headers=headers, timeout=TIMEOUT)


def test_each_endpoint_publishes_its_metadata_and_a_request_without_a_token_is_sent_there(gw: Gateway, issuer: str) -> None:
    for path in ["/mcp", "/mcp/ops", "/servers/demo/mcp"]:
        meta = httpx2.get(f"{gw.base}/.well-known/oauth-protected-resource{path}", timeout=TIMEOUT)
        assert meta.status_code == 200, meta.text
        assert meta.json()["resource"] == f"{gw.base}{path}"
        assert meta.json()["authorization_servers"] == [issuer]
        assert meta.json()["scopes_supported"] == ["mcp"]
        refused = initialize(gw, None, path)
        assert refused.status_code == 401
        challenge = refused.headers["WWW-Authenticate"]
        assert challenge.startswith("Bearer ")
        assert f'resource_metadata="{gw.base}/.well-known/oauth-protected-resource{path}"' in challenge
        assert 'scope="mcp"' in challenge
    assert httpx2.get(f"{gw.base}/.well-known/oauth-protected-resource/mcp/nope", timeout=TIMEOUT).status_code == 404


@pytest.mark.parametrize(
    "case",
    ["other audience", "expired", "bad signature", "alg none", "HS256", "wrong issuer", "no audience", "inactive opaque"],
)
def test_a_bad_token_gets_401_and_nothing_else(gw: Gateway, issuer: str, case: str) -> None:
    audience = f"{gw.base}/mcp"
    claims: dict[str, Any] = {
        "other audience": {"aud": "http://127.0.0.1:1/mcp"},
        "expired": {"aud": audience, "exp_in": -600},
        "bad signature": {"aud": audience, "foreign_key": True},
        "alg none": {"aud": audience, "alg": "none"},
        "HS256": {"aud": audience, "alg": "HS256"},
        "wrong issuer": {"aud": audience, "iss": "http://127.0.0.1:1"},
        "no audience": {},
        "inactive opaque": {"aud": audience, "opaque": True, "exp_in": -600},
    }[case]
    token = mint(issuer, **claims)
    answer = initialize(gw, token)
    assert answer.status_code == 401, answer.text
    assert 'error="invalid_token"' in answer.headers["WWW-Authenticate"]
    assert "Mcp-Session-Id" not in answer.headers
    assert answer.json()["error"]["code"] == -32001 and "result" not in answer.json()
    assert token not in gw.log_text() and token not in answer.text


def test_a_token_without_the_scope_gets_403_insufficient_scope(gw: Gateway, issuer: str) -> None:
    answer = initialize(gw, mint(issuer, aud=f"{gw.base}/mcp", scope="other"))
    assert answer.status_code == 403
    assert 'error="insufficient_scope"' in answer.headers["WWW-Authenticate"]
    assert 'scope="mcp"' in answer.headers["WWW-Authenticate"]


def test_good_tokens_of_each_kind_open_a_session(gw: Gateway, issuer: str) -> None:
    assert initialize(gw, mint(issuer, aud=f"{gw.base}/mcp")).status_code == 200
    assert initialize(gw, mint(issuer, aud=f"{gw.base}/mcp", opaque=True)).status_code == 200
    assert initialize(gw, STATIC).status_code == 200
    server_token = mint(issuer, aud=f"{gw.base}/servers/demo/mcp")
    assert initialize(gw, server_token, "/servers/demo/mcp").status_code == 200
    assert initialize(gw, server_token, "/mcp").status_code == 401, "a token for one endpoint is not for another"


def test_a_key_rotated_in_by_the_issuer_is_found(gw: Gateway, issuer: str) -> None:
    assert initialize(gw, mint(issuer, aud=f"{gw.base}/mcp")).status_code == 200
    stats = httpx2.get(f"{issuer}/control/stats", timeout=TIMEOUT).json()
    httpx2.post(f"{issuer}/control/rotate", json={}, timeout=TIMEOUT).raise_for_status()
    rotated = mint(issuer, aud=f"{gw.base}/mcp")
    # The key set is fetched again for an unknown key at most every 10 s: poll until the lasting outcome.
    deadline = time.monotonic() + 15
    while (status := initialize(gw, rotated).status_code) != 200 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert status == 200
    after = httpx2.get(f"{issuer}/control/stats", timeout=TIMEOUT).json()
    assert after["jwks"] - stats["jwks"] <= 2, "the key set is not fetched per request"


@pytest.mark.parametrize(
    ("user", "groups", "allowed", "refused"),
    [("alice", ["ops"], "/mcp/ops", "/mcp/dev"), ("bob", ["dev"], "/mcp/dev", "/mcp/ops")],
)
def test_users_reach_the_profiles_granted_to_them(
    gw: Gateway, issuer: str, user: str, groups: list[str], allowed: str, refused: str
) -> None:
    token = mint(issuer, sub=user, groups=groups, aud=f"{gw.base}/mcp")
    assert initialize(gw, token, allowed).status_code == 200
    denied = initialize(gw, token, refused)
    assert denied.status_code == 403
    assert user in denied.json()["error"]["message"]
    assert initialize(gw, STATIC, "/mcp/ops").status_code == 403, "a static token is granted nothing by default"


class MemoryTokenStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


async def test_the_sdk_clients_oauth_flow_reaches_the_tools(gw: Gateway, issuer: str) -> None:
    redirect_uri = f"http://127.0.0.1:{free_port()}/callback"
    redirects: list[str] = []

    async def open_browser(url: str) -> None:
        async with httpx2.AsyncClient(timeout=TIMEOUT) as browser:
            answer = await browser.get(url)
        assert answer.status_code == 302, answer.text
        redirects.append(answer.headers["Location"])

    async def receive_callback() -> AuthorizationCodeResult:
        params = dict(parse_qsl(urlsplit(redirects[-1]).query))
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"))

    storage = MemoryTokenStorage()
    provider = OAuthClientProvider(
        server_url=f"{gw.base}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="yrden-resource-test",
            redirect_uris=[AnyUrl(redirect_uri)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage=storage,
        redirect_handler=open_browser,
        callback_handler=receive_callback,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(TIMEOUT, read=60.0)) as http:
        async with Client(streamable_http_client(f"{gw.base}/mcp", http_client=http), read_timeout_seconds=TIMEOUT) as client:
            tools = await client.list_tools()
            assert any(tool.name.startswith("demo") for tool in tools.tools)
            echo = next(tool.name for tool in tools.tools if tool.name.endswith("echo"))
            result = await client.call_tool(echo, {"message": "through oauth"})
            assert "through oauth" in text_of(result)
    assert storage.client_info is not None, "the client registered itself (DCR)"
    assert storage.tokens is not None and len(redirects) == 1, "one sign-in"
    # A refreshed token (same user, new token) is accepted as the first was.
    refreshed = httpx2.post(
        f"{issuer}/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": storage.tokens.refresh_token or "",
            "client_id": storage.client_info.client_id or "",
        },
        timeout=TIMEOUT,
    )
    assert refreshed.status_code == 200, refreshed.text
    assert refreshed.json()["access_token"] != storage.tokens.access_token
    assert initialize(gw, refreshed.json()["access_token"]).status_code == 200


def test_an_issuer_that_cannot_be_reached_gets_503_not_401(yrden: Path, issuer: str, tmp_path: Path) -> None:
    port = free_port()
    nowhere = f"http://127.0.0.1:{free_port()}"
    config = {
        "gateway": {"auth": {"issuer": nowhere, "audience": f"http://127.0.0.1:{port}/mcp"}},
        "mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}},
    }
    gateway = start_gateway(yrden, config, tmp_path, port=port)
    try:
        answer = initialize(gateway, mint(issuer, iss=nowhere, aud=f"{gateway.base}/mcp"))
        assert answer.status_code == 503, answer.text
        assert answer.headers["Retry-After"] == "5"
    finally:
        gateway.stop()
