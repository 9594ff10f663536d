"""Config validation from the command line: `yrden check-config` and `yrden serve` on bad files."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import httpx2
import pytest

import harness
from harness import PYTHON, REPO_ROOT, SAMPLE_SERVER, clean_env, free_port

TIMEOUT = 30


def run(yrden: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(yrden), *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )


def write(tmp_path: Path, config, name: str = "config.json") -> Path:
    path = tmp_path / name
    path.write_text(config if isinstance(config, str) else json.dumps(config))
    return path


def output(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout + proc.stderr


GOOD = {"mcpServers": {"sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]}}}

BAD = {
    "unknown top-level key": ({"mcpServers": {}, "mcpServres": {}}, ["mcpServres"]),
    "unknown server key": (
        {"mcpServers": {"a": {"command": "true", "comand": "x"}}},
        ["mcpServers.a.comand"],
    ),
    "bad server id": ({"mcpServers": {"Bad Id!": {"command": "true"}}}, ["Bad Id!"]),
    "neither command nor url": ({"mcpServers": {"x": {"args": ["a"]}}}, ["mcpServers.x"]),
    "wrong type": ({"mcpServers": {"a": {"command": 42}}}, ["mcpServers.a.command"]),
}


def test_good_config_passes(yrden, tmp_path):
    proc = run(yrden, "check-config", str(write(tmp_path, GOOD)), cwd=tmp_path)
    assert proc.returncode == 0, output(proc)


@pytest.mark.parametrize("case", list(BAD))
def test_bad_config_exits_2_and_names_the_field(yrden, tmp_path, case):
    config, paths = BAD[case]
    proc = run(yrden, "check-config", str(write(tmp_path, config)), cwd=tmp_path)
    assert proc.returncode == 2, f"exit {proc.returncode}\n{output(proc)}"
    for path in paths:
        assert path in output(proc), f"the message does not name {path!r}:\n{output(proc)}"


def test_every_problem_is_reported_at_once(yrden, tmp_path):
    config = {
        "mcpServers": {"Bad Id!": {"command": "true"}, "x": {}, "ok": {"command": "true"}},
        "unknownKey": True,
    }
    proc = run(yrden, "check-config", str(write(tmp_path, config)), cwd=tmp_path)
    assert proc.returncode == 2, output(proc)
    for needle in ("Bad Id!", "mcpServers.x", "unknownKey"):
        assert needle in output(proc), f"{needle!r} missing from:\n{output(proc)}"


def test_invalid_json_exits_2(yrden, tmp_path):
    proc = run(yrden, "check-config", str(write(tmp_path, '{"mcpServers": {')), cwd=tmp_path)
    assert proc.returncode == 2, output(proc)
    assert output(proc).strip(), "no message for a file that is not JSON"


def test_serve_refuses_a_bad_config(yrden, tmp_path):
    bad = write(tmp_path, {"mcpServers": {"x": {}}})
    port = free_port()
    proc = run(yrden, "serve", "--config", str(bad), "--listen", f"127.0.0.1:{port}", cwd=tmp_path)
    assert proc.returncode == 2, f"exit {proc.returncode}\n{output(proc)}"
    assert "mcpServers.x" in output(proc), output(proc)


def test_unknown_subcommand_is_usage_error(yrden, tmp_path):
    proc = run(yrden, "no-such-command", cwd=tmp_path)
    assert proc.returncode == 2, output(proc)


# ---------------------------------------------------------------------------
# A newcomer's first hour: the README's sample, `{}`, hosts' own files, numbers out of range

HOST_FIXTURES = REPO_ROOT / "Tests" / "Fixtures" / "hosts"

# Each host's file (as the host documents it) and the notices check-config must print for it: host keys the
# gateway ignores, named by their path.
HOST_NOTICES = {
    "claude_desktop_config.json": ["globalShortcut"],
    "cline_mcp_settings.json": ["mcpServers.brave-search.alwaysAllow", "mcpServers.docs-sse.autoApprove"],
    "vscode_mcp.json": ["servers", "inputs", "mcpServers.fetch.envFile", "mcpServers.fetch.dev"],
    "cursor_mcp.json": ["mcpServers.local-notes.envFile"],
    "windsurf_mcp_config.json": [],
    "claude_code_mcp.json": [],
}


def readme_sample_config() -> str:
    """The first JSON block of the README that has a `gateway` section: the sample a newcomer copies."""
    text = (REPO_ROOT / "README.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    return next(block for block in blocks if '"gateway"' in block)


def test_the_readme_sample_passes_with_a_warning_for_its_unset_token(yrden, tmp_path):
    sample = readme_sample_config()
    assert "${REMOTE_TOKEN}" in sample, "the README's sample no longer names REMOTE_TOKEN; update this test"
    proc = run(yrden, "check-config", str(write(tmp_path, sample)), cwd=tmp_path)
    assert proc.returncode == 0, output(proc)
    assert "ok, 3 servers: time, demo, remote" in proc.stdout, output(proc)
    warning = next(line for line in proc.stderr.splitlines() if "REMOTE_TOKEN" in line)
    assert "warning: mcpServers.remote.headers.Authorization" in warning, warning
    assert "is not set" in warning and "where the gateway runs" in warning, warning
    assert '"remote" will show as failed' in warning, warning


def test_an_empty_config_says_there_are_no_servers(yrden, tmp_path):
    proc = run(yrden, "check-config", str(write(tmp_path, {})), cwd=tmp_path)
    assert proc.returncode == 0, output(proc)
    assert proc.stdout.strip().endswith('ok, no servers yet; add them under "mcpServers"'), output(proc)
    assert "0 server(s)" not in output(proc)


OUT_OF_RANGE = {
    "maxBodyBytes": ({"gateway": {"maxBodyBytes": 9223372036854775807}}, "gateway.maxBodyBytes", "(1 to 1073741824)"),
    "maxSessions": ({"gateway": {"maxSessions": 1e30}}, "gateway.maxSessions", "(1 to 1000000)"),
    "timeout": (
        {"mcpServers": {"a": {"command": "x", "timeouts": {"connect": 0.0000001}}}},
        "mcpServers.a.timeouts.connect",
        "(0.001 to 31536000 seconds)",
    ),
    "maxAttempts": (
        {"mcpServers": {"a": {"command": "x", "reconnect": {"maxAttempts": 10**12}}}},
        "mcpServers.a.reconnect.maxAttempts",
        "(1 to 1000000)",
    ),
    "cline timeout": ({"mcpServers": {"a": {"command": "x", "timeout": -5}}}, "mcpServers.a.timeout", "seconds)"),
}


@pytest.mark.parametrize("case", list(OUT_OF_RANGE))
def test_numbers_out_of_range_exit_2_naming_the_field_and_the_range(yrden, tmp_path, case):
    config, path, allowed = OUT_OF_RANGE[case]
    proc = run(yrden, "check-config", str(write(tmp_path, config)), cwd=tmp_path)
    assert proc.returncode == 2, f"exit {proc.returncode}\n{output(proc)}"
    line = next((line for line in proc.stderr.splitlines() if f": {path}: " in line), None)
    assert line is not None, f"no problem at {path}:\n{output(proc)}"
    assert "out of range" in line and allowed in line and " — use " in line, line


@pytest.mark.parametrize("name", list(HOST_NOTICES))
def test_every_hosts_own_file_passes_as_it_is(yrden, tmp_path, name):
    proc = run(yrden, "check-config", str(HOST_FIXTURES / name), cwd=tmp_path)
    assert proc.returncode == 0, output(proc)
    assert ": ok, " in proc.stdout, output(proc)
    notices = [line.split(": notice: ", 1)[1].split(":", 1)[0] for line in proc.stderr.splitlines() if ": notice: " in line]
    for path in HOST_NOTICES[name]:
        assert path in notices, f"no notice for {path}:\n{output(proc)}"
    assert "unknown key" not in output(proc)


def test_a_typo_in_a_yrden_key_is_still_an_error(yrden, tmp_path):
    config = {"mcpServers": {"a": {"command": "x", "autoApprove": [], "timeuots": {"connect": 5}}}}
    proc = run(yrden, "check-config", str(write(tmp_path, config)), cwd=tmp_path)
    assert proc.returncode == 2, output(proc)
    assert 'mcpServers.a.timeuots: unknown key "timeuots" — did you mean "timeouts"?' in proc.stderr, output(proc)


def test_an_unset_variable_in_the_gateway_section_still_refuses_the_file(yrden, tmp_path):
    bad = write(tmp_path, {"gateway": {"publicURL": "${PUBLIC_URL_NOT_SET}"}, "mcpServers": {}})
    proc = run(yrden, "check-config", str(bad), cwd=tmp_path)
    assert proc.returncode == 2, output(proc)
    assert "gateway.publicURL: environment variable PUBLIC_URL_NOT_SET is not set" in proc.stderr, output(proc)
    port = free_port()
    proc = run(yrden, "serve", "--config", str(bad), "--listen", f"127.0.0.1:{port}", cwd=tmp_path)
    assert proc.returncode == 2, output(proc)


def server_state(gw, server_id: str) -> dict:
    response = httpx2.get(f"{gw.base}/api/v1/servers/{server_id}", timeout=5)
    assert response.status_code == 200, response.text
    return response.json()


def wait_for_state(gw, server_id: str, state: str, timeout: float = 20) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        server = server_state(gw, server_id)
        if server["state"] == state or time.monotonic() >= deadline:
            return server
        time.sleep(0.1)


def test_an_unset_variable_fails_only_its_server(gateway):
    gw = gateway(
        {
            "mcpServers": {
                "sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]},
                "remote": {
                    "url": "http://127.0.0.1:9/mcp",
                    "headers": {"Authorization": "Bearer ${REMOTE_TOKEN_NOT_SET}"},
                },
            }
        }
    )
    assert wait_for_state(gw, "sample", "connected")["state"] == "connected"
    remote = server_state(gw, "remote")
    assert remote["state"] == "failed", remote
    assert remote["lastError"]["kind"] == "config", remote
    message = remote["lastError"]["message"]
    assert "REMOTE_TOKEN_NOT_SET is not set" in message and "where the gateway runs" in message, message
    assert "mcpServers.remote.headers.Authorization" in message, message
    assert remote["reconnect"] is None, "nothing will change until the config or the environment does"
    health = httpx2.get(f"{gw.base}/healthz", timeout=5).json()
    assert health["servers"]["remote"]["state"] == "failed", health


def test_a_vscode_file_is_served_and_its_prompt_fails_only_its_server(gateway):
    gw = gateway(
        {
            "inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": True}],
            "servers": {
                "sample": {"type": "stdio", "command": PYTHON, "args": [str(SAMPLE_SERVER)], "envFile": ".env"},
                "prompted": {
                    "type": "stdio",
                    "command": PYTHON,
                    "args": [str(SAMPLE_SERVER)],
                    "env": {"API_KEY": "${input:api-key}"},
                },
            },
        }
    )
    assert wait_for_state(gw, "sample", "connected")["state"] == "connected"
    prompted = server_state(gw, "prompted")
    assert prompted["state"] == "failed" and prompted["lastError"]["kind"] == "config", prompted
    assert "${input:api-key} is a VS Code input prompt" in prompted["lastError"]["message"], prompted
    assert gw.child("sample_server") is not None
    assert len([c for c in gw.children() if "sample_server" in c.command]) == 1, "the prompted server was started"


def test_a_server_added_with_an_unset_variable_is_kept_and_says_what_to_set(gateway):
    gw = gateway({"mcpServers": {"sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]}}})
    entry = {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${SEARCH_TOKEN_NOT_SET}"}}
    response = httpx2.post(f"{gw.base}/api/v1/servers", json={"id": "search", "config": entry}, timeout=10)
    assert response.status_code == 201, response.text
    search = wait_for_state(gw, "search", "failed")
    assert search["lastError"]["kind"] == "config", search
    assert "SEARCH_TOKEN_NOT_SET is not set" in search["lastError"]["message"], search
    assert "where the gateway runs" in search["lastError"]["message"], search
    assert "${SEARCH_TOKEN_NOT_SET}" in gw.config_path.read_text(), "the entry is saved as written"


# Issue 25: an unset variable in a token must never leave an endpoint open.

UNSET_TOKENS = {
    "admin token": ({"gateway": {"adminToken": "${ADMIN_TOKEN_NOT_SET}"}}, "gateway.adminToken", "ADMIN_TOKEN_NOT_SET"),
    "client token": (
        {"gateway": {"clientTokens": ["${CLIENT_TOKEN_NOT_SET}"]}},
        "gateway.clientTokens[0]",
        "CLIENT_TOKEN_NOT_SET",
    ),
    "profile token": (
        {"gateway": {"clientTokens": ["gateway-token"]}, "profiles": {"p": {"clientTokens": ["${PROFILE_TOKEN_NOT_SET}"]}}},
        "profiles.p.clientTokens[0]",
        "PROFILE_TOKEN_NOT_SET",
    ),
}


@pytest.mark.parametrize("case", list(UNSET_TOKENS))
def test_an_unset_variable_in_a_token_refuses_the_file_naming_it(yrden, tmp_path, case):
    config, path, variable = UNSET_TOKENS[case]
    bad = write(tmp_path, {**config, "mcpServers": {}})
    proc = run(yrden, "check-config", str(bad), cwd=tmp_path)
    assert proc.returncode == 2, output(proc)
    assert f"{path}: environment variable {variable} is not set" in proc.stderr, output(proc)
    proc = run(yrden, "serve", "--config", str(bad), "--listen", f"127.0.0.1:{free_port()}", cwd=tmp_path)
    assert proc.returncode == 2, output(proc)
    assert variable in proc.stderr, output(proc)


def test_a_token_list_of_empty_strings_is_refused(yrden, tmp_path):
    bad = write(tmp_path, {"gateway": {"clientTokens": ["", ""]}, "mcpServers": {}})
    proc = run(yrden, "check-config", str(bad), cwd=tmp_path)
    assert proc.returncode == 2, output(proc)
    assert "gateway.clientTokens[0]: a client token is empty" in proc.stderr, output(proc)


def test_a_reload_that_unsets_a_profiles_token_is_refused_and_the_profile_stays_closed(gateway):
    config = {"mcpServers": {}, "profiles": {"p": {"clientTokens": ["profile-token"]}}}
    gw = gateway(config)
    endpoint = f"{gw.base}/mcp/p"
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    assert httpx2.post(endpoint, json=initialize, headers=headers, timeout=5).status_code == 401
    config["profiles"]["p"]["clientTokens"] = ["${PROFILE_TOKEN_NOT_SET}"]
    gw.config_path.write_text(json.dumps(config))
    harness.wait_until(lambda: "config not reloaded" in gw.log_text(), 20, "the reload to be refused")
    assert "PROFILE_TOKEN_NOT_SET" in gw.log_text()
    assert httpx2.post(endpoint, json=initialize, headers=headers, timeout=5).status_code == 401
