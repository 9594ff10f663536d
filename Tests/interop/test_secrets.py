"""Secrets stay secret: canary secrets planted in every secret place of a config, looked for at every exit.

Secret places: env and header values (literal, mixed with ``${VAR}``, and as the default of ``${VAR:-…}``),
``auth.clientSecret``, ``gateway.adminToken`` and ``gateway.clientTokens``, URL user info and ``?token=``.
Exits: the admin API (config, server list and entries, problem+json answers, the events stream, logs), the
CLI, ``/healthz``, the gateway's own log, and the environment of its stdio children. Then the Host rules of
every path, and ``localhost:PORT`` as a listen address.
"""

from __future__ import annotations

import http.server
import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from harness import PYTHON, SAMPLE_SERVER, clean_env, free_port, start_gateway

CANARY = "CANARY"
ADMIN_TOKEN = f"adm-lit{CANARY}1-from-env"

# Values of the gateway's environment that secrets refer to. Each is a canary of its own.
ENVIRONMENT = {
    "ADMIN_PART": "from-env",
    "CLIENT_TOKEN_VAR": f"client-token-{CANARY}2",
    "HEADER_VAR": f"header-{CANARY}3",
    "URL_PASS_VAR": f"url-pass-{CANARY}4",
    "PASSED_ON_VAR": f"passed-on-{CANARY}5",
    "UNRELATED_VAR": "plain-unrelated-value",
    "LATE_VAR": f"late-{CANARY}13",
    "PROFILE_TOKEN_VAR": f"profile-token-{CANARY}14",
}


def secret_config(dump: Path) -> dict[str, Any]:
    """Every secret place filled with a literal canary, a ``${VAR}`` mixed with one, or a canary default."""
    return {
        "gateway": {
            "adminToken": f"adm-lit{CANARY}1-${{ADMIN_PART}}",
            "clientTokens": ["${CLIENT_TOKEN_VAR}", f"literal-client-{CANARY}6"],
        },
        "mcpServers": {
            "envy": {
                "command": "/bin/sh",
                "args": ["-c", 'env > "$ENV_DUMP"; exec "$0" "$1"', PYTHON, str(SAMPLE_SERVER)],
                "env": {
                    "ENV_DUMP": str(dump),
                    "DSN": f"postgres://u:{CANARY}7@${{HOME}}/db",
                    "WITH_DEFAULT": f"${{UNSET_SECRET_VAR:-default-{CANARY}8}}",
                    "PASSED_ON_VAR": "${PASSED_ON_VAR}",
                },
            },
            "remote": {
                "url": f"http://user:{CANARY}9@127.0.0.1:1/mcp?token={CANARY}10&password=${{URL_PASS_VAR}}",
                "headers": {"Authorization": f"Bearer {CANARY}11${{HEADER_VAR}}", "X-Other": "${PASSED_ON_VAR}"},
                "reconnect": "never",
            },
            "signed": {
                "url": "http://127.0.0.1:1/mcp",
                "auth": {"type": "oauth", "clientId": "c", "clientSecret": f"cs-{CANARY}12"},
                "disabled": True,
            },
        },
        "profiles": {"coding": {"clientTokens": ["${PROFILE_TOKEN_VAR}"]}},
    }


@pytest.fixture(scope="module")
def secret_gateway(yrden: Path, tmp_path_factory: pytest.TempPathFactory):
    """One gateway for the module: the tests read, and the one that writes puts back what it read."""
    workdir = tmp_path_factory.mktemp("secrets")
    dump = workdir / "child-env.txt"
    gw = start_gateway(yrden, secret_config(dump), workdir / "gw", env=ENVIRONMENT)
    try:
        yield gw, dump
    finally:
        gw.stop()


def admin(gw) -> httpx2.Client:
    return httpx2.Client(base_url=f"{gw.base}/api/v1", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=15)


def assert_no_canary(where: str, text: str) -> None:
    assert CANARY not in text, f"{where} shows a secret: …{text[max(0, text.find(CANARY) - 80):text.find(CANARY) + 40]}…"


def test_admin_api_shows_no_secret_and_says_where_each_comes_from(secret_gateway):
    gw, _ = secret_gateway
    with admin(gw) as api:
        config = api.get("/config")
        assert config.status_code == 200
        assert_no_canary("GET /config", config.text)
        shown = config.json()
        assert shown["gateway"]["adminToken"] == "********${ADMIN_PART}"
        assert shown["gateway"]["clientTokens"] == ["${CLIENT_TOKEN_VAR}", "********"]
        env = shown["mcpServers"]["envy"]["env"]
        assert env["DSN"] == "********${HOME}********"
        assert env["WITH_DEFAULT"] == "${UNSET_SECRET_VAR:-********}"
        remote = shown["mcpServers"]["remote"]
        assert remote["url"] == "http://user:********@127.0.0.1:1/mcp?token=********&password=${URL_PASS_VAR}"
        assert remote["headers"]["Authorization"] == "********${HEADER_VAR}"
        for path in ["/servers", "/servers/envy", "/servers/remote", "/servers/signed", "/logs"]:
            answer = api.get(path)
            assert answer.status_code == 200, path
            assert_no_canary(f"GET {path}", answer.text)
    assert_no_canary("/healthz", httpx2.get(f"{gw.base}/healthz").text)


def test_an_entry_sent_back_as_shown_keeps_every_stored_secret(secret_gateway):
    gw, _ = secret_gateway
    before = json.loads(gw.config_path.read_text())
    with admin(gw) as api:
        for server in ["envy", "remote", "signed"]:
            shown = api.get(f"/servers/{server}").json()["config"]
            answer = api.put(f"/servers/{server}", json=shown)
            assert answer.status_code == 200, answer.text
        shown = api.get("/config").json()
        answer = api.put("/config", json=shown)
        assert answer.status_code == 200, answer.text
    assert json.loads(gw.config_path.read_text()) == before


def test_problem_answers_do_not_echo_credentials(secret_gateway):
    gw, _ = secret_gateway
    bad_entries = {
        "bad-url": {"url": f"ftp://user:{CANARY}20@host/mcp?token={CANARY}21"},
        "bad-port": {"url": f"https://user:{CANARY}22@host:99999/mcp?api_key={CANARY}23"},
        "unclosed": {"command": "/bin/true", "env": {"A": f"{CANARY}24 ${{"}},
        "bad-name": {"command": "/bin/true", "env": {"A": f"${{1X:-{CANARY}25}}"}},
        "bad-header": {"url": "https://host/mcp", "headers": {"A": f"{CANARY}26\nX-Injected: 1"}},
        "mark-left": {"url": "https://host/mcp", "headers": {"A": "********${HEADER_VAR}"}},
    }
    with admin(gw) as api:
        for name, entry in bad_entries.items():
            answer = api.post("/servers", json={"id": name, "config": entry})
            assert answer.status_code == 400, (name, answer.text)
            assert answer.headers["content-type"].startswith("application/problem+json")
            assert_no_canary(f"the 400 for {name}", answer.text)
    assert_no_canary("the gateway's log", gw.log_text())


def test_the_events_stream_shows_no_secret(secret_gateway):
    gw, _ = secret_gateway
    received: list[str] = []
    opened = threading.Event()

    def read() -> None:
        with admin(gw) as api, api.stream("GET", "/events", timeout=httpx2.Timeout(15, read=15)) as stream:
            opened.set()
            for chunk in stream.iter_text():
                received.append(chunk)
                if "server.added" in "".join(received) and '"id":"fresh"' in "".join(received):
                    return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert opened.wait(10)
    with admin(gw) as api:
        entry = {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": f"Bearer {CANARY}30${{HEADER_VAR}}"}}
        assert api.post("/servers", json={"id": "fresh", "config": entry}).status_code == 201
    reader.join(15)
    text = "".join(received)
    assert "server.added" in text
    assert_no_canary("the events stream", text)


def test_cli_output_shows_no_secret(yrden, secret_gateway):
    gw, _ = secret_gateway
    for args in (["servers", "list"], ["servers", "list", "--json"], ["logs", "--server", "remote"]):
        proc = subprocess.run(
            [str(yrden), *args, "--url", gw.base, "--token", ADMIN_TOKEN],
            capture_output=True,
            text=True,
            timeout=30,
            env=clean_env(),
        )
        assert proc.returncode == 0, proc.stderr
        assert_no_canary(f"yrden {' '.join(args)}", proc.stdout + proc.stderr)


def test_children_do_not_inherit_the_gateways_secret_variables(secret_gateway):
    _, dump = secret_gateway
    inherited = dict(line.split("=", 1) for line in dump.read_text().splitlines() if "=" in line)
    for name in ["CLIENT_TOKEN_VAR", "HEADER_VAR", "URL_PASS_VAR", "ADMIN_PART", "PROFILE_TOKEN_VAR"]:
        assert name not in inherited, f"{name} reached a stdio child"
    assert inherited.get("PASSED_ON_VAR") == ENVIRONMENT["PASSED_ON_VAR"], "a server's own env passes one on"
    assert inherited.get("UNRELATED_VAR") == ENVIRONMENT["UNRELATED_VAR"], "other variables are inherited"


def test_a_secret_variable_of_a_server_added_at_runtime_is_withheld_too(secret_gateway):
    gw, dump = secret_gateway
    started = dump.stat().st_mtime_ns
    with admin(gw) as api:
        entry = {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${LATE_VAR}"}, "reconnect": "never"}
        assert api.post("/servers", json={"id": "late", "config": entry}).status_code == 201
        assert api.post("/servers/envy/restart").status_code in (200, 202)
        deadline = time.monotonic() + 20
        while dump.stat().st_mtime_ns == started or api.get("/servers/envy").json()["state"] != "connected":
            assert time.monotonic() < deadline, "envy did not restart"
            time.sleep(0.1)
    inherited = dict(line.split("=", 1) for line in dump.read_text().splitlines() if "=" in line)
    assert "LATE_VAR" not in inherited and "CLIENT_TOKEN_VAR" not in inherited
    assert inherited.get("UNRELATED_VAR") == ENVIRONMENT["UNRELATED_VAR"]


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics", "/mcp", "/api/v1/servers", "/oauth/callback"])
def test_every_path_refuses_a_foreign_host(secret_gateway, path):
    gw, _ = secret_gateway
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    with httpx2.Client(timeout=10, headers=headers) as http:
        for foreign in ["evil.example", f"evil.example:{gw.port}", f"127.0.0.1.evil.example:{gw.port}"]:
            answer = http.get(f"{gw.base}{path}", headers={"Host": foreign})
            assert answer.status_code == 403, (path, foreign, answer.status_code)
            assert "servers" not in answer.text and "remote" not in answer.text
        own = http.get(f"{gw.base}{path}", headers={"Host": f"localhost:{gw.port}"})
        assert own.status_code != 403, (path, own.text)


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics"])
def test_read_only_paths_refuse_a_foreign_origin(secret_gateway, path):
    gw, _ = secret_gateway
    assert httpx2.get(f"{gw.base}{path}", headers={"Origin": "https://evil.example"}).status_code == 403
    assert httpx2.get(f"{gw.base}{path}", headers={"Origin": f"http://localhost:{gw.port}"}).status_code in (200, 503)


def test_localhost_is_a_listen_address_that_starts(yrden: Path, tmp_path: Path):
    port = free_port()
    log = tmp_path / "yrden.log"
    (tmp_path / "yrden.json").write_text(json.dumps({"mcpServers": {}}))
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(yrden), "serve", "--config", str(tmp_path / "yrden.json"), "--listen", f"localhost:{port}"],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=tmp_path,
            env=clean_env(),
        )
    try:
        deadline = time.monotonic() + 20
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                status = httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code
                break
            except httpx2.TransportError:
                time.sleep(0.1)
        assert status == 200, f"exit {proc.poll()}: {log.read_text()}"
    finally:
        proc.terminate()
        proc.wait(15)


class EchoingUpstream(http.server.BaseHTTPRequestHandler):
    """An upstream that quotes the credential it was sent in its errors: on ``/refuse`` it refuses everything
    (401); on ``/mcp`` it completes the handshake and lists one tool, then fails every other request (400)."""

    def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        method, request_id = message.get("method"), message.get("id")
        if self.path == "/mcp" and method == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "echo", "version": "1"}}
            return self.answer(200, {"jsonrpc": "2.0", "id": request_id, "result": result})
        if self.path == "/mcp" and request_id is None:
            return self.answer(202, None)
        if self.path == "/mcp" and method == "tools/list":
            tool = {"name": "leak", "inputSchema": {"type": "object"}}
            return self.answer(200, {"jsonrpc": "2.0", "id": request_id, "result": {"tools": [tool]}})
        error = {"code": -32001, "message": f"bad credentials: {self.headers.get('Authorization')}"}
        self.answer(401 if self.path == "/refuse" else 400, {"jsonrpc": "2.0", "id": request_id, "error": error})

    def answer(self, status: int, message: dict[str, Any] | None) -> None:
        body = b"" if message is None else json.dumps(message).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def call_tool(base: str, name: str) -> dict[str, Any]:
    """``tools/call`` through the gateway over plain HTTP; the JSON-RPC answer."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx2.Client(base_url=base, headers=headers, timeout=15) as http_client:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        opened = http_client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        session = {"Mcp-Session-Id": opened.headers["mcp-session-id"]}
        http_client.post("/mcp", headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {}}}
        return http_client.post("/mcp", headers=session, json=call).json()


def test_secrets_echoed_by_an_upstream_or_printed_by_a_child_are_hidden(yrden: Path, tmp_path: Path):
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EchoingUpstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    config = {
        "mcpServers": {
            "echo": {
                "type": "http",
                "url": f"http://127.0.0.1:{upstream.server_address[1]}/refuse",
                "headers": {"Authorization": "Bearer ${ECHO_TOKEN_VAR}"},
                "reconnect": "never",
            },
            "calls": {
                "type": "http",
                "url": f"http://127.0.0.1:{upstream.server_address[1]}/mcp",
                "headers": {"Authorization": f"Bearer call-{CANARY}42"},
            },
            "loud": {
                "command": "/bin/sh",
                "args": ["-c", 'echo "my token is $LOUD_TOKEN" >&2; exit 3'],
                "env": {"LOUD_TOKEN": f"loud-{CANARY}41"},
                "reconnect": "never",
            },
        }
    }
    gw = start_gateway(yrden, config, tmp_path / "gw", env={"ECHO_TOKEN_VAR": f"echo-{CANARY}40"})
    try:
        with httpx2.Client(base_url=gw.base, timeout=10) as http_client:
            health = http_client.get("/healthz").json()
            servers = http_client.get("/api/v1/servers").text
            logs = http_client.get("/api/v1/logs").text
        answer = call_tool(gw.base, "calls__leak")
        assert "bad credentials: ********" in answer["error"]["message"], answer
        assert_no_canary("a failed tools/call", json.dumps(answer))
        assert health["servers"]["echo"]["lastError"]["kind"] == "auth"
        assert "bad credentials: ********" in health["servers"]["echo"]["lastError"]["message"]
        assert "my token is ********" in logs, "the child's stderr line arrived, with its secret hidden"
        for where, text in [("/healthz", json.dumps(health)), ("/api/v1/servers", servers), ("/api/v1/logs", logs)]:
            assert_no_canary(where, text)
    finally:
        gw.stop()
        upstream.shutdown()
    assert_no_canary("the gateway's log", gw.log_text())
