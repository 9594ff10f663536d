"""The `yrden servers|login|logs` commands, as a client of a running gateway's admin API.

Each test starts a real gateway on loopback with an admin token and runs the CLI as a user would, with
the gateway's address and token in the environment (YRDEN_URL, YRDEN_ADMIN_TOKEN) or as flags. What the
CLI prints is checked against what the admin API itself answers, and against the processes that run.
"""

from __future__ import annotations

import json
import queue
import re
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pytest

from harness import PYTHON, REPO_ROOT, clean_env, free_port, wait_until

TOKEN = "cli-test-token-3f9a"
CLI_TIMEOUT = 60
TABLE_HEADER = ["ID", "TRANSPORT", "STATE", "TOOLS", "PROMPTS", "RESOURCES", "LAST ERROR"]


# ---------------------------------------------------------------------------
# Helpers


def run_cli(
    yrden: Path, *args: str, base: str | None, token: str | None = TOKEN, timeout: float = CLI_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """``yrden ARGS`` with the gateway's address and token in the environment (when given)."""
    extra = {}
    if base is not None:
        extra["YRDEN_URL"] = base
    if token is not None:
        extra["YRDEN_ADMIN_TOKEN"] = token
    proc = subprocess.run(
        [str(yrden), *args],
        env=clean_env(extra),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert TOKEN not in proc.stdout + proc.stderr, f"the admin token was printed: {shown(proc)}"
    return proc


def shown(proc: subprocess.CompletedProcess[str]) -> str:
    return f"exit {proc.returncode}\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"


def api(gw, method: str, path: str, **kwargs: Any) -> httpx2.Response:
    """The admin API, asked directly (what the CLI's output is compared with)."""
    with httpx2.Client(timeout=30) as http:
        return http.request(method, f"{gw.base}{path}", headers={"Authorization": f"Bearer {TOKEN}"}, **kwargs)


def api_servers(gw) -> dict[str, dict[str, Any]]:
    r = api(gw, "GET", "/api/v1/servers")
    assert r.status_code == 200, f"GET /api/v1/servers: HTTP {r.status_code}: {r.text[:500]}"
    return {s["id"]: s for s in r.json()["servers"]}


def table_rows(stdout: str) -> dict[str, dict[str, str]]:
    """The rows of `servers list`, by id, as {column: cell}; checks the header."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    assert lines, "servers list printed nothing"
    assert lines[0].split()[:6] == TABLE_HEADER[:6] and lines[0].rstrip().endswith("LAST ERROR"), (
        f"unexpected header: {lines[0]!r}"
    )
    rows = {}
    for line in lines[1:]:
        cells = line.split(None, 6)
        assert len(cells) == 7, f"a row without 7 columns: {line!r}"
        rows[cells[0]] = dict(zip(TABLE_HEADER, cells, strict=True))
    return rows


def demo_entry(yrden: Path) -> dict[str, Any]:
    return {"command": str(yrden), "args": ["demo-server"]}


def demo_children(gw) -> list[int]:
    return [p.pid for p in gw.children() if "demo-server" in p.command and p.state != "Z"]


@pytest.fixture
def admin_gateway(gateway, yrden):
    """A gateway with an admin token, fronting the demo server and one disabled server."""
    config = {
        "mcpServers": {
            "demo": demo_entry(yrden),
            "parked": {"command": PYTHON, "args": ["-c", "pass"], "disabled": True},
        }
    }
    return gateway(config, env={"YRDEN_ADMIN_TOKEN": TOKEN})


# ---------------------------------------------------------------------------
# servers list


def test_list_prints_a_table_matching_the_api(yrden, admin_gateway):
    gw = admin_gateway
    proc = run_cli(yrden, "servers", "list", base=gw.base)
    assert proc.returncode == 0, shown(proc)
    rows = table_rows(proc.stdout)
    servers = api_servers(gw)
    assert set(rows) == set(servers) == {"demo", "parked"}
    for server_id, server in servers.items():
        row = rows[server_id]
        assert row["TRANSPORT"] == server["transport"]
        assert row["STATE"] == server["state"]
        assert int(row["TOOLS"]) == server["counts"]["tools"]
        assert int(row["PROMPTS"]) == server["counts"]["prompts"]
        assert int(row["RESOURCES"]) == server["counts"]["resources"]
    assert servers["demo"]["state"] == "connected" and int(rows["demo"]["TOOLS"]) > 0
    assert rows["parked"]["STATE"] == "disabled"
    assert "\x1b" not in proc.stdout + proc.stderr, "control codes although nothing is a terminal"


def test_list_json_is_the_api_answer(yrden, admin_gateway):
    gw = admin_gateway
    proc = run_cli(yrden, "servers", "list", "--json", "--url", gw.base, "--token", TOKEN, base=None, token=None)
    assert proc.returncode == 0, shown(proc)
    printed = json.loads(proc.stdout)
    assert [s["id"] for s in printed["servers"]] == list(api_servers(gw)), printed
    # Same document apart from what moves on its own.
    for server in printed["servers"]:
        assert server["id"] in ("demo", "parked")
        assert {"state", "counts", "transport", "config"} <= set(server)


# ---------------------------------------------------------------------------
# servers add / remove


def test_add_with_wait_connects_and_remove_stops_it(yrden, admin_gateway):
    gw = admin_gateway
    before = set(demo_children(gw))
    proc = run_cli(
        yrden, "servers", "add", "extra", "--command", str(yrden), "--arg", "demo-server", "--wait", base=gw.base
    )
    assert proc.returncode == 0, shown(proc)
    assert "connected" in proc.stdout, shown(proc)
    assert "\x1b" not in proc.stderr, "a spinner although stderr is not a terminal"

    servers = api_servers(gw)
    assert servers["extra"]["state"] == "connected", servers["extra"]
    tools = servers["extra"]["counts"]["tools"]
    assert tools == servers["demo"]["counts"]["tools"] > 0  # the same program as `demo`
    assert f"{tools} tools" in proc.stdout, shown(proc)
    new_children = set(demo_children(gw)) - before
    assert len(new_children) == 1, f"expected one new demo-server child, found {new_children}"

    listed = run_cli(yrden, "servers", "list", base=gw.base)
    row = table_rows(listed.stdout)["extra"]
    assert (row["STATE"], row["TRANSPORT"], int(row["TOOLS"])) == ("connected", "stdio", tools)

    # The entry was saved to the config file, as written.
    saved = json.loads(gw.config_path.read_text())["mcpServers"]["extra"]
    assert saved["command"] == str(yrden) and saved["args"] == ["demo-server"]

    removed = run_cli(yrden, "servers", "remove", "extra", base=gw.base)
    assert removed.returncode == 0, shown(removed)
    assert "extra" not in api_servers(gw)
    (child,) = new_children
    wait_until(lambda: child not in demo_children(gw), 10, "the removed server's process to exit")
    assert "extra" not in table_rows(run_cli(yrden, "servers", "list", base=gw.base).stdout)


def test_add_remote_entry_from_flags(yrden, admin_gateway):
    gw = admin_gateway
    port = free_port()  # nothing listens there: the entry is stored, the connection fails
    proc = run_cli(
        yrden,
        "servers",
        "add",
        "remote",
        "--url",
        f"http://127.0.0.1:{port}/mcp",
        "--type",
        "http",
        "--header",
        "X-Api-Key: abc123",
        "--prefix",
        "far",
        "--disabled",
        base=gw.base,
    )
    assert proc.returncode == 0, shown(proc)
    config = api_servers(gw)["remote"]["config"]
    assert config["url"] == f"http://127.0.0.1:{port}/mcp"
    assert config["type"] == "http" and config["prefix"] == "far" and config["disabled"] is True
    assert list(config["headers"]) == ["X-Api-Key"]  # the value is a secret: redacted in answers
    saved = json.loads(gw.config_path.read_text())["mcpServers"]["remote"]
    assert saved["headers"] == {"X-Api-Key": "abc123"}


def test_add_invalid_entry_prints_each_problem(yrden, admin_gateway):
    gw = admin_gateway
    proc = run_cli(yrden, "servers", "add", "broken", "--command", "python3 -m nothing", base=gw.base)
    assert proc.returncode == 1, shown(proc)
    expected = api(gw, "POST", "/api/v1/servers", json={"id": "broken", "config": {"command": "python3 -m nothing"}})
    assert expected.status_code == 400, expected.text
    problem = expected.json()
    assert problem["detail"] in proc.stderr, shown(proc)
    for error in problem["errors"]:
        assert f"{error['path']}: {error['message']}" in proc.stderr, shown(proc)
        assert error["fix"] in proc.stderr, shown(proc)
    assert "broken" not in api_servers(gw)


def test_add_usage_errors_exit_2(yrden, admin_gateway):
    gw = admin_gateway
    neither = run_cli(yrden, "servers", "add", "x", base=gw.base)
    both = run_cli(yrden, "servers", "add", "x", "--command", "a", "--url", "http://127.0.0.1:1/", base=gw.base)
    bad_env = run_cli(yrden, "servers", "add", "x", "--command", "a", "--env", "NOEQUALS", base=gw.base)
    for proc in (neither, both, bad_env):
        assert proc.returncode == 2, shown(proc)
    assert "x" not in api_servers(gw)


def test_add_wait_reports_a_server_that_cannot_start(yrden, admin_gateway):
    gw = admin_gateway
    entry = json.dumps({"reconnect": "never"})
    proc = run_cli(
        yrden,
        "servers",
        "add",
        "crasher",
        "--command",
        PYTHON,
        "--arg",
        "-c",
        "--arg",
        "import sys; sys.exit(3)",
        "--json-entry",
        entry,
        "--wait",
        base=gw.base,
    )
    assert proc.returncode == 1, shown(proc)
    server = api_servers(gw)["crasher"]
    assert server["state"] == "failed" and server["lastError"], server
    assert server["lastError"]["message"] in proc.stderr, shown(proc)


def test_add_wait_gives_up_after_timeout(yrden, admin_gateway):
    gw = admin_gateway
    started = time.monotonic()
    proc = run_cli(
        yrden,
        "servers",
        "add",
        "sleeper",
        "--command",
        PYTHON,
        "--arg",
        "-c",
        "--arg",
        "import time; time.sleep(120)",
        "--wait",
        "--timeout",
        "2",
        base=gw.base,
    )
    elapsed = time.monotonic() - started
    assert proc.returncode == 1, shown(proc)
    assert "did not connect within 2 s" in proc.stderr, shown(proc)
    assert elapsed < 10, f"--timeout 2 took {elapsed:.1f}s"
    assert "sleeper stays in the gateway's config and keeps retrying" in proc.stderr, shown(proc)
    assert "yrden servers remove sleeper" in proc.stderr, shown(proc)
    assert "sleeper" in api_servers(gw), "without --rollback the entry stays"
    api(gw, "DELETE", "/api/v1/servers/sleeper")


def test_add_wait_rollback_removes_a_server_that_does_not_connect(yrden, admin_gateway):
    gw = admin_gateway
    args = ["--command", PYTHON, "--arg", "-c", "--arg", "import time; time.sleep(120)"]
    proc = run_cli(yrden, "servers", "add", "undone", *args, "--wait", "--timeout", "2", "--rollback", base=gw.base)
    assert proc.returncode == 1, shown(proc)
    assert "did not connect within 2 s" in proc.stderr, shown(proc)
    assert "removed undone again (--rollback)" in proc.stderr, shown(proc)
    assert "undone" not in api_servers(gw), "--rollback should have removed the entry"
    assert "undone" not in api(gw, "GET", "/api/v1/config").text, "nor may it stay in the saved config"

    proc = run_cli(yrden, "servers", "add", "undone", *args, "--rollback", base=gw.base)
    assert proc.returncode == 2 and "--rollback" in proc.stderr, shown(proc)
    assert "undone" not in api_servers(gw), "a usage error must not add anything"


def test_add_says_where_variables_are_expanded(yrden, admin_gateway):
    gw = admin_gateway
    proc = run_cli(
        yrden,
        "servers",
        "add",
        "search",
        "--url",
        f"http://127.0.0.1:{free_port()}/mcp",
        "--header",
        "Authorization: Bearer ${SEARCH_TOKEN_FOR_CLI_TEST}",
        base=gw.base,
    )
    assert proc.returncode == 0, shown(proc)
    assert "${SEARCH_TOKEN_FOR_CLI_TEST} is expanded where the gateway runs" in proc.stderr, shown(proc)
    assert "until SEARCH_TOKEN_FOR_CLI_TEST is set there" in proc.stderr, shown(proc)
    deadline = time.monotonic() + 10
    while (server := api_servers(gw)["search"])["state"] != "failed" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server["lastError"]["kind"] == "config", server
    assert "SEARCH_TOKEN_FOR_CLI_TEST" in server["lastError"]["message"], server
    api(gw, "DELETE", "/api/v1/servers/search")


# ---------------------------------------------------------------------------
# connect / disconnect / restart


def test_disconnect_connect_restart(yrden, admin_gateway):
    gw = admin_gateway
    (first,) = demo_children(gw)

    proc = run_cli(yrden, "servers", "disconnect", "demo", base=gw.base)
    assert proc.returncode == 0, shown(proc)
    assert api_servers(gw)["demo"]["state"] == "disconnected"
    assert "disconnected" in proc.stdout
    wait_until(lambda: not demo_children(gw), 10, "the demo server's process to stop")

    proc = run_cli(yrden, "servers", "connect", "demo", "--wait", base=gw.base)
    assert proc.returncode == 0, shown(proc)
    assert api_servers(gw)["demo"]["state"] == "connected"
    (second,) = demo_children(gw)
    assert second != first

    proc = run_cli(yrden, "servers", "restart", "demo", "--wait", base=gw.base)
    assert proc.returncode == 0, shown(proc)
    server = api_servers(gw)["demo"]
    assert server["state"] == "connected"
    assert f"{server['counts']['tools']} tools" in proc.stdout, shown(proc)
    third = wait_until(lambda: [p for p in demo_children(gw) if p != second], 10, "a new demo-server process")
    assert len(third) == 1 and second not in demo_children(gw)

    # Without --wait the command returns at once with the state it left the server in.
    proc = run_cli(yrden, "servers", "restart", "demo", base=gw.base)
    assert proc.returncode == 0, shown(proc)
    assert re.match(r"demo: \w+", proc.stdout), shown(proc)


def test_connect_a_disabled_server_fails_with_the_reason(yrden, admin_gateway):
    gw = admin_gateway
    proc = run_cli(yrden, "servers", "connect", "parked", base=gw.base)
    assert proc.returncode == 1, shown(proc)
    expected = api(gw, "POST", "/api/v1/servers/parked/connect")
    assert expected.status_code == 409
    assert expected.json()["detail"] in proc.stderr, shown(proc)


def test_unknown_server_fails_with_the_reason(yrden, admin_gateway):
    gw = admin_gateway
    expected = api(gw, "DELETE", "/api/v1/servers/nosuch")
    assert expected.status_code == 404
    for command in ("remove", "connect", "disconnect", "restart"):
        proc = run_cli(yrden, "servers", command, "nosuch", base=gw.base)
        assert proc.returncode == 1, shown(proc)
        assert expected.json()["detail"] in proc.stderr, shown(proc)


# ---------------------------------------------------------------------------
# logs


def test_logs_show_the_servers_entries(yrden, admin_gateway):
    gw = admin_gateway
    assert run_cli(yrden, "servers", "restart", "demo", "--wait", base=gw.base).returncode == 0

    proc = run_cli(yrden, "logs", "--server", "demo", "--json", base=gw.base)
    assert proc.returncode == 0, shown(proc)
    entries = json.loads(proc.stdout)["entries"]
    assert entries, "no log entries about demo after a restart"
    assert {e["server"] for e in entries} == {"demo"}

    proc = run_cli(yrden, "logs", "--server", "demo", base=gw.base)
    assert proc.returncode == 0, shown(proc)
    lines = proc.stdout.splitlines()
    assert len(lines) == len(entries), shown(proc)
    for line, entry in zip(lines, entries, strict=True):
        assert line.split(None, 4)[:4] == [entry["time"], entry["level"], "demo", entry["event"]], line
        assert line.endswith(entry["message"].replace("\n", " ⏎ ")), line

    proc = run_cli(yrden, "logs", "--limit", "2", "--json", base=gw.base)
    assert proc.returncode == 0, shown(proc)
    assert len(json.loads(proc.stdout)["entries"]) <= 2

    proc = run_cli(yrden, "logs", "--level", "loud", base=gw.base)
    assert proc.returncode == 2, shown(proc)


def test_logs_follow_prints_new_entries_once(yrden, admin_gateway):
    gw = admin_gateway
    env = clean_env({"YRDEN_URL": gw.base, "YRDEN_ADMIN_TOKEN": TOKEN})
    follower = subprocess.Popen(
        [str(yrden), "logs", "--follow", "--json", "--server", "demo"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(follower.stdout.readline, "")), daemon=True)
    reader.start()

    def printed() -> list[dict[str, Any]]:
        return [json.loads(line) for line in list(lines) if line.strip()]

    def demo_entries() -> list[dict[str, Any]]:
        return api(gw, "GET", "/api/v1/logs", params={"server": "demo", "limit": 1000}).json()["entries"]

    def restart_and_see_it_printed(before: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Restart demo; once its new entries are logged, wait for --follow to print every one of them."""
        assert run_cli(yrden, "servers", "restart", "demo", "--wait", base=gw.base).returncode == 0

        def logged() -> list[dict[str, Any]] | None:
            entries = demo_entries()
            return entries if len(entries) > len(before) else None

        after = wait_until(logged, 10, "log entries about the restart")
        new = [e for e in after if e not in before]
        wait_until(lambda: all(e in printed() for e in new), 20, f"--follow to print {len(new)} new entries")
        return after

    try:
        wait_until(lambda: lines, 20, "the first batch printed")  # polling has begun
        first = restart_and_see_it_printed(demo_entries())
        # A second restart's entries printed prove polls ran after the first's: none of those repeated them.
        restart_and_see_it_printed(first)
    finally:
        follower.terminate()
        follower.wait(timeout=10)
        reader.join(timeout=10)
        err = follower.stderr.read()
    assert follower.returncode is not None and "error" not in err, err  # it ran until it was stopped
    shown = printed()
    assert len(shown) == len({json.dumps(e, sort_keys=True) for e in shown}), "an entry was printed twice"


# ---------------------------------------------------------------------------
# Failures a user runs into


def test_wrong_or_missing_token(yrden, admin_gateway):
    gw = admin_gateway
    proc = run_cli(yrden, "servers", "list", base=gw.base, token=None)
    assert proc.returncode == 1, shown(proc)
    assert "the gateway needs an admin token: pass --token or set YRDEN_ADMIN_TOKEN" in proc.stderr, shown(proc)
    assert proc.stdout == ""
    for args in (("servers", "list", "--token", "not-the-token"), ("logs", "--token", "not-the-token")):
        proc = run_cli(yrden, *args, base=gw.base, token=None)
        assert proc.returncode == 1, shown(proc)
        assert "the gateway refused the admin token" in proc.stderr, shown(proc)
        assert "needs an admin token" not in proc.stderr, "a wrong token is not a missing one"
        assert "not-the-token" not in proc.stdout + proc.stderr


def test_gateway_not_running(yrden):
    base = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    proc = run_cli(yrden, "servers", "list", base=base)
    assert proc.returncode == 1, shown(proc)
    assert f"cannot reach the gateway at {base}: is `yrden serve` running?" in proc.stderr, shown(proc)
    assert time.monotonic() - started < 10, "a refused connection should fail at once"
    for args in (("logs",), ("servers", "add", "x", "--command", "true"), ("login", "x")):
        proc = run_cli(yrden, *args, base=base)
        assert proc.returncode == 1 and "cannot reach the gateway" in proc.stderr, shown(proc)


def test_bad_gateway_url_is_a_usage_error(yrden):
    proc = run_cli(yrden, "servers", "list", "--url", "127.0.0.1:8750", base=None)
    assert proc.returncode == 2, shown(proc)


def test_the_mcp_endpoint_is_not_the_gateway_url(yrden, admin_gateway):
    gw = admin_gateway
    for path in ("/mcp", "/mcp/", "/api/v1"):
        proc = run_cli(yrden, "logs", "--url", gw.base + path, base=None)
        assert proc.returncode == 2, shown(proc)
        assert f"use {gw.base} instead" in proc.stderr, shown(proc)
    proc = run_cli(yrden, "servers", "list", "--url", gw.base + "/elsewhere", base=None)
    assert proc.returncode == 1, shown(proc)
    assert f"no Yrden admin API at {gw.base}/elsewhere/api/v1" in proc.stderr, shown(proc)
    assert "HTTP 404" in proc.stderr and "not its /mcp endpoint" in proc.stderr, shown(proc)


def test_an_unknown_command_is_named(yrden):
    proc = subprocess.run([str(yrden), "bogus"], capture_output=True, text=True, timeout=30, env=clean_env())
    assert proc.returncode == 2, shown(proc)
    assert "'bogus' is not a yrden command" in proc.stderr, shown(proc)
    assert "serve, stdio, check-config" in proc.stderr, shown(proc)
    assert "USAGE" not in proc.stderr + proc.stdout, "the default command's usage is not the answer to a typo"


def test_login_on_a_server_without_oauth(yrden, admin_gateway):
    gw = admin_gateway
    proc = run_cli(yrden, "login", "demo", "--timeout", "20", base=gw.base)
    assert proc.returncode == 1, shown(proc)
    expected = api(gw, "POST", "/api/v1/servers/demo/auth")
    assert expected.status_code in (409, 501), expected.text
    assert expected.json()["detail"] in proc.stderr, shown(proc)
    assert "http" not in proc.stdout, "printed an authorization URL for a server without OAuth"


def test_help_lists_the_client_commands(yrden):
    proc = subprocess.run([str(yrden), "--help"], capture_output=True, text=True, timeout=30, env=clean_env())
    assert proc.returncode == 0
    for name in ("servers", "login", "logs"):
        assert re.search(rf"^\s+{name}\b", proc.stdout, re.M), proc.stdout


def test_login_to_an_oauth_server_that_cannot_be_reached(yrden, gateway):
    """The sign-in cannot even discover the authorization server: the CLI prints the gateway's reason and exits 1
    (the whole sign-in through a real gateway is in test_oauth_gateway.py)."""
    port = free_port()
    config = {"mcpServers": {"tasks": {"url": f"http://127.0.0.1:{port}/mcp", "auth": {"type": "oauth"}}}}
    gw = gateway(config, env={"YRDEN_ADMIN_TOKEN": TOKEN})
    proc = run_cli(yrden, "login", "tasks", "--timeout", "20", base=gw.base)
    assert proc.returncode == 1, shown(proc)
    assert "cannot reach" in proc.stderr, shown(proc)


# ---------------------------------------------------------------------------
# login through a whole sign-in, against a stand-in admin API
#
# A stand-in serves the part of openapi.yaml that `login` uses, to drive the CLI through every turn a
# sign-in can take (refusal, timeout, polling without an event stream): POST /servers/{id}/auth, GET /servers/{id}, and the event stream (or a 404 for it, so the CLI
# polls). The authorization URL it hands out points back at the stand-in: opening it plays the user
# signing in (or refusing), as a browser would.


class FakeSignInGateway:
    ID = "tasks"

    def __init__(self, *, stream: bool):
        self.stream = stream
        self.state = "failed"
        self.auth: dict[str, Any] = {"status": "needsReauth", "reason": "never signed in"}
        self.lock = threading.Lock()
        self.subscribers: list[queue.Queue] = []
        self.auth_posts = 0
        self.subscriptions = 0
        self.authorizations: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def view(self) -> dict[str, Any]:
        connected = self.state == "connected"
        return {
            "id": self.ID,
            "transport": "http",
            "enabled": True,
            "state": self.state,
            "auth": self.auth,
            "lastError": None if connected else {"kind": "auth", "message": "the server answered 401"},
            "reconnect": None,
            "connectedSince": "2026-05-04T10:15:02Z" if connected else None,
            "counts": {"tools": 4 if connected else 0, "prompts": 0, "resources": 1 if connected else 0},
            "protocolVersion": None,
            "serverInfo": None,
            "config": {"url": "https://tasks.example.com/mcp", "auth": {"type": "oauth"}},
        }

    def publish(self, name: str, data: dict[str, Any]) -> None:
        for subscriber in list(self.subscribers):
            subscriber.put((name, data))

    def set_auth(self, auth: dict[str, Any]) -> None:
        with self.lock:
            self.auth = auth
        self.publish("auth.progress", {"id": self.ID, "auth": auth})

    def set_state(self, state: str) -> None:
        with self.lock:
            self.state = state
            view = self.view()
        self.publish("server.state", {"server": view})

    def start_flow(self) -> dict[str, Any]:
        self.auth_posts += 1
        self.set_auth({"status": "discovering"})

        def later() -> None:
            time.sleep(0.3)
            self.set_auth({"status": "registering"})
            time.sleep(0.3)
            url = f"{self.base}/authorize?state=Zk3q&client_id=yrden"
            self.set_auth({"status": "waitingForUser", "authorizationURL": url, "expiresAt": "2026-05-04T10:20:00Z"})

        threading.Thread(target=later, daemon=True).start()
        return {"status": "discovering"}

    def authorize(self, query: str) -> None:
        """The user at the authorization server: ``error=…`` refuses, anything else signs in."""
        self.authorizations.append(query)
        if "error=" in query:
            self.set_auth({"status": "failed", "reason": "the authorization server answered error=access_denied"})
            return
        self.set_auth({"status": "exchangingCode"})
        time.sleep(0.2)
        self.set_auth({"status": "complete"})
        self.set_state("connecting")
        time.sleep(0.3)
        self.set_state("connected")

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def send_json(self, status: int, body: Any, ctype: str = "application/json") -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def authorized(self) -> bool:
                if self.headers.get("Authorization") == f"Bearer {TOKEN}":
                    return True
                problem = {"title": "Unauthorized", "status": 401, "detail": "no"}
                self.send_json(401, problem, "application/problem+json")
                return False

            def do_GET(self) -> None:
                path, _, query = self.path.partition("?")
                if path == "/authorize":
                    self.send_json(200, {"signed": True})
                    threading.Thread(target=fake.authorize, args=(query,), daemon=True).start()
                    return
                if not self.authorized():
                    return
                if path == f"/api/v1/servers/{fake.ID}":
                    with fake.lock:
                        self.send_json(200, fake.view())
                elif path == "/api/v1/events" and fake.stream:
                    self.stream_events()
                else:
                    self.send_json(404, {"title": "Not Found", "status": 404, "detail": "no such path"})

            def do_POST(self) -> None:
                if not self.authorized():
                    return
                if self.path == f"/api/v1/servers/{fake.ID}/auth":
                    self.send_json(202, fake.start_flow())
                else:
                    self.send_json(404, {"title": "Not Found", "status": 404, "detail": "no such path"})

            def stream_events(self) -> None:
                events: queue.Queue = queue.Queue()
                fake.subscribers.append(events)
                fake.subscriptions += 1
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    while True:
                        try:
                            name, data = events.get(timeout=1)
                            text = f"event: {name}\ndata: {json.dumps(data)}\n\n"
                        except queue.Empty:
                            text = ": keepalive\n\n"
                        chunk = text.encode()
                        self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    fake.subscribers.remove(events)

        return Handler


@pytest.fixture(params=[True, False], ids=["events", "polling"])
def fake_gateway(request):
    fake = FakeSignInGateway(stream=request.param)
    fake.thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


def start_login(yrden: Path, fake: FakeSignInGateway, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(yrden), "login", fake.ID, *extra],
        env=clean_env({"YRDEN_URL": fake.base, "YRDEN_ADMIN_TOKEN": TOKEN}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def read_authorization_url(proc: subprocess.Popen[str], fake: FakeSignInGateway) -> str:
    """The URL the CLI prints, read line by line from its stdout as it comes."""
    assert proc.stdout is not None
    deadline = time.monotonic() + 15
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if line.strip().startswith(fake.base):
            return line.strip()
    proc.kill()
    stderr = proc.stderr.read() if proc.stderr else ""
    raise AssertionError(f"no authorization URL printed; stdout so far: {''.join(seen)!r}; stderr: {stderr}")


def test_login_prints_the_url_and_waits_until_connected(yrden, fake_gateway):
    fake = fake_gateway
    proc = start_login(yrden, fake, "--timeout", "30")
    url = read_authorization_url(proc, fake)
    assert "state=Zk3q" in url
    assert proc.poll() is None, "login returned before the user signed in"
    with httpx2.Client(timeout=10) as http:  # the user opens the URL
        assert http.get(url).status_code == 200
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, f"{out}\n{err}"
    assert "tasks: signed in and connected (4 tools, 0 prompts, 1 resource)" in out, out
    assert fake.auth_posts == 1 and len(fake.authorizations) == 1
    assert fake.subscriptions == (1 if fake.stream else 0), "the event stream was not followed (or not given up)"
    assert "\x1b" not in err and TOKEN not in out + err


def test_login_reports_a_refused_sign_in(yrden, fake_gateway):
    fake = fake_gateway
    proc = start_login(yrden, fake, "--timeout", "30")
    url = read_authorization_url(proc, fake)
    with httpx2.Client(timeout=10) as http:  # the user refuses at the authorization server
        assert http.get(url + "&error=access_denied").status_code == 200
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1, f"{out}\n{err}"
    assert "the authorization server answered error=access_denied" in err, err


def test_login_gives_up_after_timeout(yrden, fake_gateway):
    fake = fake_gateway
    started = time.monotonic()
    proc = start_login(yrden, fake, "--timeout", "3")
    read_authorization_url(proc, fake)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1, f"{out}\n{err}"
    assert "tasks was not signed in within 3 s" in err, err
    assert time.monotonic() - started < 15


# ---------------------------------------------------------------------------
# Issue 25: what a user hits first


def test_gateway_is_the_gateway_option_of_every_command_and_the_readme_says_so(yrden, admin_gateway):
    gw = admin_gateway
    listed = run_cli(yrden, "servers", "list", "--gateway", gw.base, base=None)
    assert listed.returncode == 0 and "demo" in listed.stdout, shown(listed)
    old = run_cli(yrden, "servers", "list", "--url", gw.base, base=None)
    assert old.returncode == 0 and "demo" in old.stdout, "--url still names the gateway outside servers add"
    added = run_cli(
        yrden, "servers", "add", "far", "--url", "http://127.0.0.1:1/mcp", "--gateway", gw.base, "--disabled", base=None
    )
    assert added.returncode == 0, shown(added)
    assert api(gw, "GET", "/api/v1/servers/far").json()["config"]["url"] == "http://127.0.0.1:1/mcp"
    help_text = run_cli(yrden, "servers", "list", "--help", base=None).stdout
    assert "--gateway" in help_text, help_text
    readme = (REPO_ROOT / "README.md").read_text()
    sentence = readme[readme.index("The CLI talks to the admin API") :][:300]
    assert "--gateway" in sentence and "servers add" in sentence, sentence


def test_profiles_set_warns_about_a_rename_of_a_tool_mcp_does_not_list(yrden, admin_gateway):
    gw = admin_gateway
    proc = run_cli(yrden, "profiles", "set", "p", '{"rename": {"demo__ecko": "say", "demo__add": "plus"}}', base=gw.base)
    assert proc.returncode == 0, shown(proc)
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, f"only the tool /mcp does not list is warned about: {warnings}"
    assert '"demo__ecko"' in warnings[0] and 'closest on /mcp: "demo__echo"' in warnings[0], warnings[0]
