"""MCP over a WebSocket downstream (``GET /ws``, ``/mcp/{profile}/ws``, ``/servers/{id}/ws``, subprotocol ``mcp``):
the official SDK 1.x's ``websocket_client`` against the aggregate, a profile and one server alone (the pinned 2.x
has no WebSocket client), and what a client that breaks the transport's rules sees: refused upgrades answered
as ``/mcp`` answers them, a message over the limit closed with 1009, a client that stops reading cut off with
the gateway's memory bounded, a half-closed socket, many sockets, and no descriptor left behind.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import struct
import subprocess
import time

import httpx2
import pytest
import websocket

from harness import INTEROP_DIR, MODERN_VERSION, PYTHON, REPO_ROOT, SAMPLE_SERVER, clean_env, wait_until

VENV_1X = REPO_ROOT / ".venv-1x" / "bin" / "python"
CLIENT = INTEROP_DIR / "clients" / "client_1x_websocket.py"
ASKING_SERVER = INTEROP_DIR / "servers" / "asking_server.py"
needs_1x = pytest.mark.skipif(not VENV_1X.exists(), reason="make test installs .venv-1x (requirements-1x.txt)")

TOKEN = "ws-client-token-5d1e"
UPGRADE = {
    "Connection": "Upgrade",
    "Upgrade": "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Protocol": "mcp",
}


def config(yrden, **gateway) -> dict:
    document = {
        "mcpServers": {
            "demo": {"command": str(yrden), "args": ["demo-server"]},
            "sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]},
            "asking": {"command": PYTHON, "args": [str(ASKING_SERVER)]},
        },
        "profiles": {"team": {"servers": ["demo", "asking"]}},
    }
    if gateway:
        document["gateway"] = gateway
    return document


def ws_url(gw, path: str = "/ws") -> str:
    return f"ws://127.0.0.1:{gw.port}{path}"


def sessions(gw) -> int:
    return httpx2.get(f"{gw.base}/healthz", timeout=10).json()["sessions"]


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def status_kb(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


def metric(gw, name: str) -> float:
    total = 0.0
    for line in httpx2.get(f"{gw.base}/metrics", timeout=10).text.splitlines():
        if line.startswith(name):
            total += float(line.rsplit(" ", 1)[1])
    return total


def run_client(*args: str) -> dict:
    run = subprocess.run([str(VENV_1X), str(CLIENT), *args], capture_output=True, text=True, timeout=120, env=clean_env())
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def rpc(id: int, method: str, params: dict | None = None) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}})


INITIALIZE = rpc(
    1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
)


def connect(gw, path: str = "/ws", **options) -> websocket.WebSocket:
    return websocket.create_connection(ws_url(gw, path), subprotocols=["mcp"], timeout=20, **options)


def answer(ws: websocket.WebSocket, id: int) -> dict:
    while True:
        message = json.loads(ws.recv())
        if message.get("id") == id:
            return message


def initialized(gw, path: str = "/ws", **options) -> websocket.WebSocket:
    ws = connect(gw, path, **options)
    ws.send(INITIALIZE)
    assert "result" in answer(ws, 1)
    ws.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    return ws


def close_code(ws: websocket.WebSocket) -> int:
    """Reads until the gateway's close frame and returns its code."""
    while True:
        opcode, frame = ws.recv_data_frame(True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return struct.unpack("!H", frame.data[:2])[0]


@needs_1x
def test_an_sdk_host_lists_calls_is_asked_and_hears_changes_over_the_socket(gateway, yrden):
    gw = gateway(config(yrden))
    seen = run_client(ws_url(gw), "demo__echo", "asking__ask_name", "sample__add_tool")
    assert seen["protocolVersion"] != "2026-07-28", "a session of the handshake era, as the SDK 1.x opens"
    assert {"demo__echo", "sample__greet", "asking__ask_name"} <= set(seen["tools"])
    assert "over ws" in seen["called"]
    assert seen["asked"] == "Hello, Ada!", "the server's elicitation reached the client over the socket and back"
    assert "notifications/tools/list_changed" in seen["heard"]
    assert "sample__fresh" in seen["after"]
    wait_until(lambda: sessions(gw) == 0, 10, "the session ended with its socket")


@needs_1x
def test_a_profile_and_one_server_alone_have_their_own_sockets(gateway, yrden):
    gw = gateway(config(yrden))
    team = run_client(ws_url(gw, "/mcp/team/ws"), "demo__echo")
    assert {"demo__echo", "asking__ask_name"} <= set(team["tools"])
    assert not any(name.startswith("sample__") for name in team["tools"]), "the profile's servers only"
    alone = run_client(ws_url(gw, "/servers/demo/ws"), "echo")
    assert "echo" in alone["tools"] and not any("__" in name for name in alone["tools"])
    assert "over ws" in alone["called"]


def test_a_refused_upgrade_is_answered_as_mcp_answers_and_never_switches(gateway, yrden):
    document = config(yrden, clientTokens=[TOKEN])
    gw = gateway(document)
    with httpx2.Client(timeout=10) as http:
        # No token: 401, the same body and challenge as /mcp.
        ws_refused = http.get(f"{gw.base}/ws", headers=UPGRADE)
        mcp_refused = http.post(f"{gw.base}/mcp", content=INITIALIZE, headers={"Content-Type": "application/json"})
        assert ws_refused.status_code == mcp_refused.status_code == 401
        assert ws_refused.json() == mcp_refused.json()
        assert ws_refused.headers["www-authenticate"] == mcp_refused.headers["www-authenticate"]
        assert "sec-websocket-accept" not in ws_refused.headers
        # A browser origin that is not allowed: 403 as /mcp, even with the token.
        bearer = {"Authorization": f"Bearer {TOKEN}", "Origin": "https://evil.example"}
        ws_foreign = http.get(f"{gw.base}/ws", headers={**UPGRADE, **bearer})
        mcp_foreign = http.post(
            f"{gw.base}/mcp", content=INITIALIZE, headers={"Content-Type": "application/json", **bearer}
        )
        assert ws_foreign.status_code == mcp_foreign.status_code == 403
        assert ws_foreign.json() == mcp_foreign.json()
        # A plain GET is told to upgrade.
        plain = http.get(f"{gw.base}/ws", headers={"Authorization": f"Bearer {TOKEN}"})
        assert plain.status_code == 426 and plain.headers["upgrade"] == "websocket"
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        connect(gw)
    assert refused.value.status_code == 401
    # With the token the socket opens and answers, with the subprotocol chosen.
    ws = initialized(gw, header=[f"Authorization: Bearer {TOKEN}"])
    assert ws.getsubprotocol() == "mcp"
    ws.send(rpc(2, "tools/list"))
    assert any(tool["name"] == "demo__echo" for tool in answer(ws, 2)["result"]["tools"])
    ws.close()


def test_a_message_over_the_limit_closes_the_socket_with_1009(gateway, yrden):
    gw = gateway(config(yrden, maxBodyBytes=64 * 1024))
    ws = initialized(gw)
    ws.send(rpc(2, "tools/call", {"name": "demo__echo", "arguments": {"message": "x" * 100_000}}))
    assert close_code(ws) == 1009
    assert metric(gw, 'yrden_websocket_cut_off_total{reason="message_too_large"}') == 1
    wait_until(lambda: sessions(gw) == 0, 10, "the session ended with its socket")


def test_pings_are_answered(gateway, yrden):
    gw = gateway(config(yrden))
    ws = initialized(gw)
    ws.ping(b"are you there")
    opcode, frame = ws.recv_data_frame(True)
    assert opcode == websocket.ABNF.OPCODE_PONG and frame.data == b"are you there"
    ws.close()


def read_frame(sock: socket.socket) -> tuple[int, bytes] | None:
    """One unmasked frame from the gateway as (opcode, payload); None once the gateway closed the connection."""

    def exactly(count: int) -> bytes | None:
        data = b""
        while len(data) < count:
            chunk = sock.recv(count - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    head = exactly(2)
    if head is None:
        return None
    length = head[1] & 0x7F
    if length == 126:
        length = struct.unpack("!H", exactly(2) or b"\0\0")[0]
    elif length == 127:
        length = struct.unpack("!Q", exactly(8) or b"\0" * 8)[0]
    payload = exactly(length)
    return None if payload is None else (head[0] & 0x0F, payload)


def test_the_gateway_pings_as_configured_and_closes_a_silent_client(gateway, yrden):
    """``webSocketPingInterval`` 1 and ``webSocketPongTimeout`` 1: a client that answers the gateway's pings
    keeps its socket past the silence bound; one that answers nothing sees pings, then its connection closed
    (2 s after its last word) and its session ended."""
    gw = gateway(config(yrden, webSocketPingInterval=1, webSocketPongTimeout=1))
    ws = initialized(gw)  # websocket-client answers each ping it reads with a pong
    pings = 0
    while pings < 4:  # 4 s: twice the silence bound
        opcode, _ = ws.recv_data_frame(True)
        pings += opcode == websocket.ABNF.OPCODE_PING
    ws.send(rpc(7, "ping"))
    assert "result" in answer(ws, 7), "a client that answers pings was closed"
    ws.close()
    wait_until(lambda: sessions(gw) == 0, 10, "the session ended with its socket")

    sock = raw_upgrade(gw)
    sock.sendall(masked_text(INITIALIZE.encode()))
    opened = time.monotonic()
    frames = []
    while (frame := read_frame(sock)) is not None:
        frames.append(frame[0])
    silent_for = time.monotonic() - opened
    sock.close()
    assert 0x9 in frames, f"no ping before the close: {frames}"
    assert 0x1 in frames, "the initialize was not answered"
    assert 1.5 < silent_for < 10, f"a silent client was closed after {silent_for:.1f} s, not about 2"
    wait_until(lambda: sessions(gw) == 0, 10, "the silent client's session ended")


def test_a_client_that_stops_reading_is_cut_off_and_the_gateway_memory_stays_bounded(gateway, yrden):
    gw = gateway(config(yrden))
    ws = initialized(gw)
    ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    before = status_kb(gw.pid, "VmRSS")
    message = "y" * (256 << 10)
    sent = 0
    # 800 answers of 256 KiB would be 200 MiB held for a client that reads none of them; the gateway cuts it
    # off at 64 MiB waiting, after which the sends fail.
    try:
        for id in range(2, 802):
            ws.send(rpc(id, "tools/call", {"name": "demo__echo", "arguments": {"message": message}}))
            sent += 1
    except (OSError, websocket.WebSocketException):
        pass
    wait_until(
        lambda: metric(gw, 'yrden_websocket_cut_off_total{reason="outbox_full"}') == 1, 60, "the client cut off"
    )
    peak_growth_mb = (status_kb(gw.pid, "VmHWM") - before) / 1024
    assert sent > 256, f"more than the bound's worth was asked for ({sent} calls)"
    assert peak_growth_mb < 200, f"the gateway's peak memory grew {peak_growth_mb:.0f} MB for one client"
    wait_until(lambda: sessions(gw) == 0, 10, "the session ended with its socket")


def raw_upgrade(gw) -> socket.socket:
    """A WebSocket opened by hand, so the test can half-close its TCP socket."""
    sock = socket.create_connection(("127.0.0.1", gw.port), timeout=20)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{gw.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Protocol: mcp\r\n\r\n"
    )
    sock.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def masked_text(payload: bytes) -> bytes:
    mask = os.urandom(4)
    header = bytes([0x81])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    else:
        header += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_a_half_closed_socket_ends_its_session_and_its_calls(gateway, yrden):
    gw = gateway(config(yrden))
    sock = raw_upgrade(gw)
    sock.sendall(masked_text(INITIALIZE.encode()))
    sock.sendall(masked_text(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()))
    sock.sendall(masked_text(rpc(2, "tools/call", {"name": "asking__hang", "arguments": {"seconds": 60}}).encode()))
    wait_until(lambda: sessions(gw) == 1, 10, "the session opened")
    sock.shutdown(socket.SHUT_WR)
    # The gateway closes its side in turn: the read ends (after the initialize answer) instead of timing out.
    while sock.recv(65536):
        pass
    sock.close()
    wait_until(lambda: sessions(gw) == 0, 10, "the session ended with its socket")
    ws = initialized(gw)
    ws.send(rpc(2, "tools/call", {"name": "asking__hangs", "arguments": {}}))
    hangs = answer(ws, 2)["result"]["content"][0]["text"]
    assert "started 1 cancelled 1" in hangs, f"the call in flight was cancelled upstream: {hangs}"
    ws.close()


def test_many_sockets_come_and_go_and_leave_no_descriptor_behind(gateway, yrden):
    gw = gateway(config(yrden))
    # One socket first: whatever the first use opens for good (event loop threads, pools) is opened now.
    initialized(gw).close()
    wait_until(lambda: sessions(gw) == 0, 10, "the first session ended")
    baseline = open_fds(gw.pid)
    sockets = [initialized(gw) for _ in range(40)]
    assert sessions(gw) == 40
    for number, ws in enumerate(sockets):
        ws.send(rpc(2, "tools/call", {"name": "demo__echo", "arguments": {"message": f"socket {number}"}}))
    for number, ws in enumerate(sockets):
        assert f"socket {number}" in answer(ws, 2)["result"]["content"][0]["text"]
    for ws in sockets:
        ws.close()
    wait_until(lambda: sessions(gw) == 0, 20, "every session ended with its socket")
    wait_until(lambda: open_fds(gw.pid) <= baseline, 20, f"the gateway's descriptors back to {baseline}")


def test_bytes_sent_right_behind_the_upgrade_request_are_read_first(gateway, yrden):
    """A client may send its first message in the same write as the upgrade request: libmicrohttpd has read it
    already and hands it over with the socket."""
    gw = gateway(config(yrden))
    sock = socket.create_connection(("127.0.0.1", gw.port), timeout=20)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{gw.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n\r\n"
    )
    sock.sendall(request.encode() + masked_text(INITIALIZE.encode()))
    received = b""
    while b'"protocolVersion"' not in received:
        chunk = sock.recv(65536)
        assert chunk, f"the socket closed before the initialize answer: {received!r}"
        received += chunk
    assert received.startswith(b"HTTP/1.1 101")
    assert b"sec-websocket-protocol" not in received.lower(), "no subprotocol offered, none chosen"
    sock.close()


def test_a_client_holds_no_more_sockets_than_sessions(gateway, yrden):
    gw = gateway(config(yrden, maxSessionsPerClient=2))
    first, second = initialized(gw), initialized(gw)
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        connect(gw)
    assert refused.value.status_code == 503
    assert b"maxSessionsPerClient" in refused.value.resp_body
    first.close()
    wait_until(lambda: sessions(gw) == 1, 10, "the first socket's session ended")
    third = initialized(gw)
    third.close()
    second.close()


def test_shutdown_says_going_away_to_open_sockets_and_exits_cleanly(gateway, yrden):
    gw = gateway(config(yrden))
    ws = initialized(gw)
    gw.proc.send_signal(signal.SIGTERM)
    assert close_code(ws) == 1001
    assert gw.proc.wait(timeout=30) == 0
    assert not gw.killed


def test_a_2026_07_28_client_calls_without_a_session(gateway, yrden):
    gw = gateway(config(yrden))
    ws = connect(gw)
    envelope = {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    call = {"name": "demo__echo", "arguments": {"message": "stateless"}, "_meta": envelope}
    ws.send(rpc(7, "tools/call", call))
    result = answer(ws, 7)["result"]
    assert "stateless" in result["content"][0]["text"]
    assert sessions(gw) == 0, "a 2026-07-28 request stands alone"
    ws.close()
