"""A Streamable HTTP upstream over TLS (``https://``) whose certificate a private CA signed.

The gateway's POSTs to it go over its own kept-alive connections (issue 31), verified against the CA that
``SSL_CERT_FILE`` names, as ``wss://`` is; without the CA the server is refused as untrusted. The upstream is
``servers/http_server.py`` (the official Python SDK) with a certificate made by ``openssl`` for each test.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from harness import Gateway, admin_events, free_port, mcp_session, text_of
from test_http_upstream import SECRET, HttpUpstream
from test_websocket_tls import private_ca


def https_upstream(tmp_path: Path, flags: list[str]) -> HttpUpstream:
    _, cert, key = private_ca(tmp_path)
    upstream = HttpUpstream(
        port=free_port(),
        flags=[*flags, "--tls-cert", str(cert), "--tls-key", str(key)],
        log_path=tmp_path / "https_server.log",
    )
    upstream.start()
    return upstream


def secure_config(upstream: HttpUpstream, **extra: object) -> dict:
    url = f"https://127.0.0.1:{upstream.port}/mcp"
    entry = {"url": url, "headers": {"Authorization": "Bearer ${TEST_SECRET}"}, **extra}
    return {"mcpServers": {"secure": entry}}


@pytest.mark.anyio
@pytest.mark.parametrize("flags", [[], ["--json-response"]], ids=["sse", "json"])
async def test_an_https_server_of_a_private_ca_answers_calls(gateway, tmp_path: Path, flags: list[str]) -> None:
    upstream = https_upstream(tmp_path, flags)
    try:
        gw: Gateway = gateway(
            secure_config(upstream), env={"TEST_SECRET": SECRET, "SSL_CERT_FILE": str(tmp_path / "ca.pem")}
        )
        async with mcp_session(gw.url, mode="legacy") as session:
            await session.wait_for_tools({"secure__greet"})
            for name in ("one", "two", "three"):
                with anyio.fail_after(20):
                    result = await session.client.call_tool("secure__greet", {"name": name})
                assert text_of(result) == f"Hello over HTTP, {name}!"
    finally:
        upstream.kill()


@pytest.mark.anyio
async def test_without_the_ca_the_https_server_is_refused_as_untrusted(gateway, tmp_path: Path) -> None:
    upstream = https_upstream(tmp_path, ["--json-response"])
    try:
        gw: Gateway = gateway(secure_config(upstream, reconnect="never"), env={"TEST_SECRET": SECRET})
        async with admin_events(gw) as events:
            failed = await events.reach_state("secure", "failed", 30)
    finally:
        upstream.kill()
    assert failed["lastError"]["kind"] == "network", failed
    assert "certificate" in failed["lastError"]["message"].lower(), failed
