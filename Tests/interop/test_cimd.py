"""CIMD toward an upstream: Yrden names itself by a client ID metadata document where the authorization server
takes one (``client_id_metadata_document_supported``), and registers dynamically where it does not.

The OAuth peer (``servers/oauth_server.py --cimd``) fetches the document at the client_id URL when the browser
reaches ``/authorize`` and again at each token request, and checks that it names itself. The document is
served here, as an operator would publish it, by a small HTTP server that counts its fetches. What the peer saw
(``stats()``) says which client the gateway was; ``whoami`` says which client the token a call carried was
issued to.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx2
import pytest

from harness import Gateway, await_until, mcp_session, text_of
from oauth_peer import OAuthServer, browser_sign_in, leaked_secrets, oauth_server  # noqa: F401 (fixture)

ADMIN_TOKEN = "cimd-admin-5e1f07"
SIGN_IN_TIMEOUT = 20.0
CONNECT_TIMEOUT = 30.0


@dataclass
class DocumentServer:
    """Publishes the gateway's client metadata document at ``url``; ``redirect_uri`` is filled in once the
    gateway's port is known (the document is first read when the browser reaches the authorization server)."""

    url: str
    server: ThreadingHTTPServer
    redirect_uri: str = ""
    fetches: list[str] = field(default_factory=list)

    def document(self) -> dict[str, Any]:
        return {
            "client_id": self.url,
            "client_name": "Yrden (interop)",
            "redirect_uris": [self.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }


@pytest.fixture
def document_server() -> Iterator[DocumentServer]:
    holder: list[DocumentServer] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            published = holder[0]
            published.fetches.append(self.path)
            body = json.dumps(published.document()).encode() if self.path == "/yrden/client.json" else b"{}"
            self.send_response(200 if self.path == "/yrden/client.json" else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder.append(DocumentServer(url=f"http://127.0.0.1:{server.server_port}/yrden/client.json", server=server))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield holder[0]
    server.shutdown()
    server.server_close()


async def authorization_url(http: httpx2.AsyncClient, gw: Gateway, sid: str) -> str:
    async def waiting() -> str | None:
        response = await http.get(
            f"{gw.base}/api/v1/servers/{sid}", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
        )
        auth = response.json().get("auth") or {}
        return auth.get("authorizationURL") if auth.get("status") == "waitingForUser" else None

    return await await_until(waiting, SIGN_IN_TIMEOUT, interval=0.1)


async def wait_connected(http: httpx2.AsyncClient, gw: Gateway, sid: str) -> None:
    async def connected() -> bool:
        response = await http.get(
            f"{gw.base}/api/v1/servers/{sid}", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
        )
        return response.json().get("state") == "connected"

    await await_until(connected, CONNECT_TIMEOUT, interval=0.1)


def start(gateway, data_dir: Path, peer: OAuthServer, document: DocumentServer) -> Gateway:
    config = {
        "mcpServers": {
            "tasks": {"url": peer.url, "auth": {"type": "oauth", "clientMetadataURL": document.url}},
        }
    }
    gw = gateway(config, extra_args=("--data-dir", str(data_dir)), env={"YRDEN_ADMIN_TOKEN": ADMIN_TOKEN})
    document.redirect_uri = f"{gw.base}/oauth/callback"
    return gw


async def whoami(gw: Gateway) -> dict[str, Any]:
    async with mcp_session(gw.url) as session:
        with anyio.fail_after(20.0):
            result = await session.client.call_tool("tasks__whoami", {})
    assert not result.is_error, text_of(result)
    payload = result.structured_content
    return payload if isinstance(payload, dict) else json.loads(text_of(result))


async def test_the_metadata_document_is_the_client_where_the_server_takes_one(
    oauth_server, gateway, document_server: DocumentServer, tmp_path: Path
) -> None:
    peer = oauth_server(cimd=True)
    gw = start(gateway, tmp_path / "data", peer, document_server)
    async with httpx2.AsyncClient(timeout=30.0) as http:
        url = await authorization_url(http, gw, "tasks")
        assert dict(parse_qsl(urlsplit(url).query))["client_id"] == document_server.url
        visit = await browser_sign_in(url)
        assert visit.final_status == 200 and visit.final_url.startswith(f"{gw.base}/oauth/callback?"), visit.hops
        await wait_connected(http, gw, "tasks")

    stats = peer.stats()
    assert stats["registrations"] == 0, "the gateway registered although the server takes its document"
    assert stats["cimd_failures"] == []
    assert [c["client_id"] for c in stats["cimd_clients"]] and all(
        c["client_id"] == document_server.url for c in stats["cimd_clients"]
    )
    assert document_server.fetches, "the authorization server never read the document"
    assert (await whoami(gw))["client_id"] == document_server.url

    # A refresh is made as the same client: the peer reads the document again and issues to it.
    assert peer.expire_access_tokens() >= 1
    assert (await whoami(gw))["client_id"] == document_server.url
    # (The peer refreshes only for the client the tokens were issued to: a refresh as another would fail.)
    stats = peer.stats()
    assert stats["refreshes"] >= 1 and stats["token_requests"]["refresh_token"].get("failed", 0) == 0, stats
    assert leaked_secrets(gw.log_text(), peer.all_secret_values()) == []


async def test_a_server_without_cimd_gets_a_dynamic_registration(
    oauth_server, gateway, document_server: DocumentServer, tmp_path: Path
) -> None:
    peer = oauth_server()
    gw = start(gateway, tmp_path / "data", peer, document_server)
    async with httpx2.AsyncClient(timeout=30.0) as http:
        url = await authorization_url(http, gw, "tasks")
        client_id = dict(parse_qsl(urlsplit(url).query))["client_id"]
        assert client_id != document_server.url
        visit = await browser_sign_in(url)
        assert visit.final_status == 200, visit.hops
        await wait_connected(http, gw, "tasks")
    stats = peer.stats()
    assert stats["registrations"] == 1 and stats["cimd_fetches"] == 0
    assert document_server.fetches == []
    assert (await whoami(gw))["client_id"] == client_id
