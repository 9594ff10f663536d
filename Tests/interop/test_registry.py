"""Servers from the MCP registry: `yrden servers add --from server.json` and `POST /api/v1/servers` with a
server.json body, against a real gateway on loopback.

The files are real published entries (fixtures/registry). The PyPI one is run for real through `uvx`, offline:
the venv carries `uv` and `make venv` keeps the wheels of `mcp-server-time` at its pinned version beside it,
so the test swaps the published package for that one (the one PyPI server the venv holds) and lets `uvx`
install it from those wheels with no index. Bad files are refused with the field named and nothing added.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from harness import INTEROP_DIR, PYTHON, clean_env, free_port, listening, mcp_session, text_of, wait_until

TOKEN = "registry-test-token-8c1d"
FIXTURES = Path(__file__).parent / "fixtures" / "registry"
VENV_BIN = Path(PYTHON).parent
WHEELHOUSE = VENV_BIN.parent / "wheelhouse"
TIME_PACKAGE = ("mcp-server-time", "2026.10.19")
CLI_TIMEOUT = 120


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text())


def api(gw, method: str, path: str, **kwargs: Any) -> httpx2.Response:
    with httpx2.Client(timeout=60) as http:
        return http.request(method, f"{gw.base}/api/v1{path}", headers={"Authorization": f"Bearer {TOKEN}"}, **kwargs)


def run_cli(yrden: Path, gw, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(yrden), *args],
        env=clean_env({"YRDEN_URL": gw.base, "YRDEN_ADMIN_TOKEN": TOKEN}),
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert TOKEN not in proc.stdout + proc.stderr
    return proc


def shown(proc: subprocess.CompletedProcess[str]) -> str:
    return f"exit {proc.returncode}\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"


def offline_uv_env(tmp_path: Path) -> dict[str, str]:
    """What the gateway (and so its children) runs with: the venv's `uvx` first on PATH, installing only from
    the wheelhouse, with the venv's Python, never downloading anything."""
    assert (VENV_BIN / "uvx").exists(), f"no uvx in {VENV_BIN}: run `make venv` (Tests/interop/requirements.txt pins uv)"
    assert any(WHEELHOUSE.glob("mcp_server_time-*.whl")), f"no wheels in {WHEELHOUSE}: run `make venv`"
    path = clean_env().get("PATH", "/usr/bin:/bin")
    return {
        "YRDEN_ADMIN_TOKEN": TOKEN,
        "PATH": f"{VENV_BIN}:{path}",
        "UV_OFFLINE": "1",
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(WHEELHOUSE),
        "UV_PYTHON": PYTHON,
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "UV_TOOL_DIR": str(tmp_path / "uv-tools"),
    }


@pytest.fixture
def registry_gateway(gateway, tmp_path):
    """A gateway with an admin token and no server yet, pinning at its default (warn)."""
    return gateway({"mcpServers": {}}, env=offline_uv_env(tmp_path))


def test_a_pypi_entry_runs_through_uvx_and_its_tools_are_pinned(yrden, registry_gateway, tmp_path):
    gw = registry_gateway
    published = fixture("cerebrus-pulse-mcp.server.json")
    published["packages"][0]["identifier"], published["packages"][0]["version"] = TIME_PACKAGE
    path = tmp_path / "server.json"
    path.write_text(json.dumps(published))

    proc = run_cli(yrden, gw, "servers", "add", "--from", str(path), "--wait", "--timeout", "90")
    assert proc.returncode == 0, shown(proc)
    assert "added cerebrus-pulse-mcp" in proc.stdout, shown(proc)

    server = api(gw, "GET", "/servers/cerebrus-pulse-mcp").json()
    assert server["state"] == "connected", server
    assert server["config"]["command"] == "uvx"
    assert server["config"]["args"] == ["mcp-server-time==2026.10.19"]
    assert gw.child("uvx") is not None or any("mcp-server-time" in p.command for p in gw.children())

    async def call() -> str:
        async with mcp_session(gw.url) as session:
            result = await session.client.call_tool(
                "cerebrus-pulse-mcp__get_current_time", {"timezone": "UTC"}
            )
            return text_of(result)

    assert '"timezone": "UTC"' in anyio.run(call).replace("'", '"')

    # The definitions seen at first connect are pinned.
    pins = [p for p in api(gw, "GET", "/tool-pins").json()["pins"] if p["server"] == "cerebrus-pulse-mcp"]
    assert {p["tool"] for p in pins} == {"get_current_time", "convert_time"}, pins
    assert all(p["state"] == "pinned" for p in pins), pins


def test_a_posted_server_json_with_a_required_secret_waits_for_its_variable(registry_gateway):
    gw = registry_gateway
    r = api(gw, "POST", "/servers", json=fixture("unphurl.server.json"))
    assert r.status_code == 201, r.text
    assert r.headers["Location"] == "/api/v1/servers/unphurl"
    server = r.json()
    assert server["id"] == "unphurl"
    assert server["config"]["command"] == "npx"
    assert server["config"]["args"] == ["-y", "@unphurl/mcp-server@0.2.0"]
    assert server["config"]["env"] == {"UNPHURL_API_KEY": "${UNPHURL_API_KEY}"}
    # Kept, not started: it settles failed (a lasting state), naming what to set, and no npx ran.
    server = wait_until(
        lambda: (s := api(gw, "GET", "/servers/unphurl").json())["state"] == "failed" and s, 15, "unphurl failed"
    )
    assert server["lastError"]["kind"] == "config" and "UNPHURL_API_KEY" in server["lastError"]["message"], server
    assert not any("npx" in p.command for p in gw.children())
    assert "unphurl" in json.loads(gw.config_path.read_text())["mcpServers"]


def test_the_id_and_the_remote_are_chosen_in_the_query(registry_gateway):
    gw = registry_gateway
    r = api(gw, "POST", "/servers", params={"id": "urls", "use": "remotes[0]"}, json=fixture("unphurl.server.json"))
    assert r.status_code == 201, r.text
    assert r.json()["config"] == {"url": "https://mcp.unphurl.com/mcp", "type": "http"}
    assert r.json()["id"] == "urls"


def test_a_remote_with_url_variables_and_a_secret_header_connects(gateway, tmp_path):
    # The SDK's HTTP server demands the bearer token; the published remote-only entry is pointed at it, its
    # URL and header written with the schema's variables, as a publisher of a self-hosted server writes them.
    secret = "registry-remote-secret-41b7"
    port = free_port()
    log = open(tmp_path / "http_server.log", "ab")
    upstream = subprocess.Popen(
        [PYTHON, str(INTEROP_DIR / "servers" / "http_server.py"), "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=clean_env({"HTTP_SERVER_TOKEN": secret}),
    )
    log.close()
    try:
        wait_until(lambda: listening(port), 20, "the HTTP upstream listening")
        document = fixture("100hires.server.json")
        document["remotes"] = [
            {
                "type": "streamable-http",
                "url": "http://127.0.0.1:{port}/{path}",
                "variables": {"port": {"isRequired": True}, "path": {"default": "mcp"}},
                "headers": [
                    {"name": "Authorization", "value": "Bearer {token}", "variables": {"token": {"isSecret": True}}}
                ],
            }
        ]
        gw = gateway({"mcpServers": {}}, env={"YRDEN_ADMIN_TOKEN": TOKEN, "PORT": str(port), "TOKEN": secret})
        r = api(gw, "POST", "/servers", json=document)
        assert r.status_code == 201, r.text
        # Written to the config as references (the answer redacts header values).
        assert json.loads(gw.config_path.read_text())["mcpServers"]["100hires"] == {
            "url": "http://127.0.0.1:${PORT}/${MCP_PATH:-mcp}",
            "type": "http",
            "headers": {"Authorization": "Bearer ${TOKEN}"},
        }
        assert secret not in r.text and secret not in gw.config_path.read_text()
        wait_until(lambda: api(gw, "GET", "/servers/100hires").json()["state"] == "connected", 30, "connected")

        async def call() -> str:
            async with mcp_session(gw.url) as session:
                return text_of(await session.client.call_tool("100hires__greet", {"name": "registry"}))

        assert anyio.run(call) == "Hello over HTTP, registry!"
    finally:
        upstream.kill()
        upstream.wait(timeout=10)


def bad(**changes: Any) -> dict[str, Any]:
    document = fixture("cerebrus-pulse-mcp.server.json")
    document.update(changes)
    return document


BAD_FILES = {
    "unknown schema": (bad(**{"$schema": "https://static.modelcontextprotocol.io/schemas/2030-01-01/server.schema.json"}), "$schema"),
    "no usable package": (
        bad(packages=[{"registryType": "nuget", "identifier": "X.Server", "version": "1.0.0", "transport": {"type": "stdio"}}]),
        "packages[0].registryType",
    ),
    "missing package": (bad(packages=[]), "packages"),
    "bad hash": (
        bad(packages=[{"registryType": "mcpb", "identifier": "https://github.com/o/r/releases/download/v1/s.mcpb", "fileSha256": "not-a-digest", "transport": {"type": "stdio"}}]),
        "packages[0].fileSha256",
    ),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_files_are_refused_naming_the_field(yrden, registry_gateway, tmp_path, case):
    gw = registry_gateway
    document, field = BAD_FILES[case]
    r = api(gw, "POST", "/servers", json=document)
    assert r.status_code == 400, r.text
    problem = r.json()
    assert problem["title"] == "Invalid server.json"
    assert field in [e["path"] for e in problem["errors"]], problem

    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    proc = run_cli(yrden, gw, "servers", "add", "--from", str(path))
    assert proc.returncode != 0, shown(proc)
    assert f"{field}:" in proc.stderr, shown(proc)
    assert api(gw, "GET", "/servers").json()["servers"] == []
