"""Servers from the MCP registry packaged as MCPB bundles: a `server.json` whose package is `mcpb` posted to
`POST /api/v1/servers`, against a real gateway on loopback.

The bundle is made by the test (a tiny server on the pinned SDK and its `manifest.json`, zipped) and served
from loopback HTTP. The gateway downloads it, checks it against `fileSha256`, unpacks it into its data directory
(`bundles/<sha256>/`) and runs the command its manifest says. A wrong digest, and zips reaching outside their
folder or holding a link, are refused with the field named and nothing unpacked.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import threading
import zipfile
from pathlib import Path
from typing import Any, Iterator

import anyio
import httpx2
import pytest

from harness import PYTHON, free_port, mcp_session, text_of, wait_until

TOKEN = "registry-mcpb-token-5e2a"
SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

SERVER_PY = """
import os
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("bundled")


@mcp.tool()
def shout(text: str) -> str:
    return os.environ["GREETING"] + " " + text.upper() + "!"


import anyio
anyio.run(mcp.run_stdio_async)
"""


def api(gw, method: str, path: str, **kwargs: Any) -> httpx2.Response:
    with httpx2.Client(timeout=60) as http:
        return http.request(method, f"{gw.base}/api/v1{path}", headers={"Authorization": f"Bearer {TOKEN}"}, **kwargs)


def manifest() -> dict[str, Any]:
    return {
        "manifest_version": "0.3",
        "name": "bundled",
        "version": "1.0.0",
        "server": {
            "type": "python",
            "entry_point": "server.py",
            "mcp_config": {"command": PYTHON, "args": ["${__dirname}/server.py"], "env": {"GREETING": "${user_config.greeting}"}},
        },
        "user_config": {"greeting": {"type": "string", "title": "Greeting", "default": "hey"}},
    }


def make_bundle(path: Path, extra: list[zipfile.ZipInfo] = ()) -> str:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("manifest.json", json.dumps(manifest()))
        z.writestr("server.py", SERVER_PY)
        for info in extra:
            z.writestr(info, "escaped")
    return hashlib.sha256(path.read_bytes()).hexdigest()


def server_json(url: str, digest: str) -> dict[str, Any]:
    return {
        "$schema": SCHEMA,
        "name": "io.github.example/bundled-mcp",
        "version": "1.0.0",
        "packages": [{"registryType": "mcpb", "identifier": url, "fileSha256": digest, "transport": {"type": "stdio"}}],
    }


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[Path, str]]:
    """A folder served over loopback HTTP, and its base URL."""
    folder = tmp_path / "www"
    folder.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    port = free_port()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield folder, f"http://127.0.0.1:{port}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def mcpb_gateway(gateway, tmp_path):
    data = tmp_path / "data"
    return gateway({"mcpServers": {}}, env={"YRDEN_ADMIN_TOKEN": TOKEN, "YRDEN_DATA_DIR": str(data)}), data


def test_a_bundle_is_downloaded_checked_unpacked_and_run(mcpb_gateway, served):
    (gw, data), (www, base) = mcpb_gateway, served
    digest = make_bundle(www / "bundled.mcpb")

    r = api(gw, "POST", "/servers", json=server_json(f"{base}/bundled.mcpb", digest))
    assert r.status_code == 201, r.text
    folder = data / "bundles" / digest
    assert (folder / "manifest.json").is_file() and (folder / "server.py").is_file()
    config = json.loads(gw.config_path.read_text())["mcpServers"]["bundled-mcp"]
    assert config == {
        "command": PYTHON,
        "args": [f"{folder}/server.py"],
        "env": {"GREETING": "${GREETING:-hey}"},
        "cwd": str(folder),
    }
    wait_until(lambda: api(gw, "GET", "/servers/bundled-mcp").json()["state"] == "connected", 30, "connected")

    async def call() -> str:
        async with mcp_session(gw.url) as session:
            return text_of(await session.client.call_tool("bundled-mcp__shout", {"text": "bundle"}))

    assert anyio.run(call) == "hey BUNDLE!"


def test_a_bundle_is_removed_with_the_last_server_that_runs_it(mcpb_gateway, served):
    (gw, data), (www, base) = mcpb_gateway, served
    digest = make_bundle(www / "bundled.mcpb")
    for sid in ("first", "second"):
        r = api(gw, "POST", f"/servers?id={sid}", json=server_json(f"{base}/bundled.mcpb", digest))
        assert r.status_code == 201, r.text
    folder = data / "bundles" / digest
    stray = data / "bundles" / "not-a-bundle"
    stray.mkdir()

    assert api(gw, "DELETE", "/servers/first").status_code == 204
    assert (folder / "server.py").is_file(), "the bundle went while another server still runs it"
    assert api(gw, "DELETE", "/servers/second").status_code == 204
    assert not folder.exists(), "the bundle stayed after its last server was removed"
    assert stray.is_dir(), "a folder the installer did not make was removed"
    assert "unused bundles removed" in gw.log_text() and digest in gw.log_text()


def test_a_wrong_digest_is_refused_naming_the_field_and_nothing_is_kept(mcpb_gateway, served):
    (gw, data), (www, base) = mcpb_gateway, served
    digest = make_bundle(www / "bundled.mcpb")
    wrong = hashlib.sha256(b"another file").hexdigest()

    r = api(gw, "POST", "/servers", json=server_json(f"{base}/bundled.mcpb", wrong))
    assert r.status_code == 400, r.text
    problem = r.json()
    assert problem["title"] == "Invalid server.json"
    assert [e["path"] for e in problem["errors"]] == ["packages[0].fileSha256"], problem
    assert digest in problem["errors"][0]["message"], problem
    assert not (data / "bundles").exists() or list((data / "bundles").iterdir()) == []
    assert api(gw, "GET", "/servers/bundled-mcp").status_code == 404


def link_entry() -> zipfile.ZipInfo:
    info = zipfile.ZipInfo("link")
    info.create_system = 3
    info.external_attr = (0o120777 << 16)
    return info


@pytest.mark.parametrize(
    "entry, said",
    [
        (zipfile.ZipInfo("../escaped.txt"), "reaches outside the bundle's folder"),
        (zipfile.ZipInfo("/tmp/absolute.txt"), "is an absolute path"),
        (link_entry(), "is a symbolic link"),
    ],
    ids=["dot-dot", "absolute", "symlink"],
)
def test_a_zip_reaching_outside_its_folder_is_refused(mcpb_gateway, served, tmp_path, entry, said):
    (gw, data), (www, base) = mcpb_gateway, served
    digest = make_bundle(www / "bad.mcpb", extra=[entry])

    r = api(gw, "POST", "/servers", json=server_json(f"{base}/bad.mcpb", digest))
    assert r.status_code == 400, r.text
    errors = r.json()["errors"]
    assert [e["path"] for e in errors] == ["packages[0].identifier"], errors
    assert said in errors[0]["message"], errors
    assert not (data / "bundles" / digest).exists()
    assert not (tmp_path / "escaped.txt").exists() and not (www.parent / "escaped.txt").exists()


def test_an_http_url_that_is_not_loopback_is_refused(mcpb_gateway):
    gw, _ = mcpb_gateway
    r = api(gw, "POST", "/servers", json=server_json("http://example.com/b.mcpb", "0" * 64))
    assert r.status_code == 400, r.text
    assert [e["path"] for e in r.json()["errors"]] == ["packages[0].identifier"]


def test_without_a_data_directory_a_bundle_is_refused(gateway, served):
    www, base = served
    digest = make_bundle(www / "bundled.mcpb")
    gw = gateway({"mcpServers": {}}, env={"YRDEN_ADMIN_TOKEN": TOKEN, "XDG_DATA_HOME": "", "HOME": ""})
    r = api(gw, "POST", "/servers", json=server_json(f"{base}/bundled.mcpb", digest))
    assert r.status_code == 400, r.text
    errors = r.json()["errors"]
    assert [e["path"] for e in errors] == ["packages[0]"], errors
    assert "data directory" in errors[0]["message"], errors
    assert api(gw, "GET", "/servers/bundled-mcp").status_code == 404
