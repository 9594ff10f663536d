"""A WebSocket upstream over TLS (``wss://``) whose certificate a private CA signed.

The CA and the server's certificate are made by Debian's ``openssl`` for each test; the upstream is the SDK 1.x
``websocket_server`` serving ``wss://``. The gateway trusts the CA only when ``SSL_CERT_FILE`` names it
(OpenSSL's convention, which the gateway follows for every upstream TLS connection); a file that holds no
certificate stops the start, naming the variable.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness import Gateway, admin_events, free_port, mcp_session, text_of
from test_websocket_upstream import PYTHON_1X, websocket_upstream

pytestmark = pytest.mark.skipif(not PYTHON_1X.exists(), reason="needs .venv-1x (make venv-1x)")


def private_ca(folder: Path) -> tuple[Path, Path, Path]:
    """(CA certificate, server certificate for 127.0.0.1 signed by it, server key), made by openssl."""

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=30)

    p256 = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl("req", "-x509", *p256, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Yrden test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    openssl("req", *p256, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (folder / "server.ext").write_text(
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
    )
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "server.pem", "-days", "2", "-extfile", "server.ext")
    return folder / "ca.pem", folder / "server.pem", folder / "server.key"


def tls_upstream(folder: Path, port: int, cert: Path, key: Path):
    return websocket_upstream(folder / "ws.log", port, args=("--tls-cert", str(cert), "--tls-key", str(key)))


@pytest.mark.anyio
async def test_a_wss_server_of_a_private_ca_is_reached_when_ssl_cert_file_names_the_ca(
    gateway, tmp_path: Path
) -> None:
    ca, cert, key = private_ca(tmp_path)
    port = free_port()
    entry = {"type": "websocket", "url": f"wss://127.0.0.1:{port}/ws"}
    with tls_upstream(tmp_path, port, cert, key):
        gw: Gateway = gateway({"mcpServers": {"secure": entry}}, env={"SSL_CERT_FILE": str(ca)})
        async with admin_events(gw) as events:
            await events.reach_state("secure", "connected", 30)
        async with mcp_session(gw.url) as session:
            greeting = text_of(await session.client.call_tool("secure__greet", {"name": "over TLS"}))
    assert greeting == "Hello over WebSocket, over TLS!"


@pytest.mark.anyio
async def test_without_the_ca_the_wss_server_is_refused_as_untrusted(gateway, tmp_path: Path) -> None:
    _, cert, key = private_ca(tmp_path)
    port = free_port()
    entry = {"type": "websocket", "url": f"wss://127.0.0.1:{port}/ws", "reconnect": "never"}
    with tls_upstream(tmp_path, port, cert, key):
        gw: Gateway = gateway({"mcpServers": {"secure": entry}})
        async with admin_events(gw) as events:
            failed = await events.reach_state("secure", "failed", 30)
    assert failed["lastError"]["kind"] == "network", failed
    assert "certificate" in failed["lastError"]["message"].lower(), failed


def test_an_ssl_cert_file_without_certificates_stops_the_start_naming_it(yrden, tmp_path: Path) -> None:
    empty = tmp_path / "empty.pem"
    empty.write_text("not a certificate\n")
    (tmp_path / "yrden.json").write_text(json.dumps({"mcpServers": {}}))
    result = subprocess.run(
        [str(yrden), "serve", "--config", str(tmp_path / "yrden.json"), "--listen", "127.0.0.1:0"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "SSL_CERT_FILE": str(empty)},
    )
    assert result.returncode == 2, result.stderr
    assert "SSL_CERT_FILE" in result.stderr and str(empty) in result.stderr, result.stderr
