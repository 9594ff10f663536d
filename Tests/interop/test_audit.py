"""The audit trail (`"audit": {"file": ...}`): one line per call that reaches an upstream and per admin change,
with the caller's user and a digest of the arguments, never their values; `yrden audit verify` finds an edited
or removed line and says where; the chain goes on across a restart."""

from __future__ import annotations

import hashlib
import json
import subprocess
import uuid
from pathlib import Path

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from harness import Gateway, mcp_session, start_gateway, text_of, wait_until

TOKEN = "audit-client-token-0123456789abcdef"
ADMIN = "audit-admin-token-0123456789abcdef"


def user_of(token: str) -> str:
    """The user a static client token is audited as: `token:` and its SHA-256's first 8 hex digits."""
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:8]


def digest(arguments: dict) -> str:
    """SHA-256 of the arguments' canonical JSON (keys sorted, no spaces), as the trail writes it."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def config(yrden: Path, audit_file: Path) -> dict:
    return {
        "gateway": {"clientTokens": [TOKEN], "adminToken": ADMIN},
        "audit": {"file": str(audit_file)},
        "mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}},
    }


@pytest.fixture(scope="module")
def gw(yrden: Path, tmp_path_factory: pytest.TempPathFactory):
    workdir = tmp_path_factory.mktemp("audit")
    gateway = start_gateway(yrden, config(yrden, workdir / "audit.jsonl"), workdir)
    yield gateway
    gateway.stop()


def audit_file(gw: Gateway) -> Path:
    return gw.workdir / "audit.jsonl"


def audit_lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_for_line(trail: Path, what: str, **fields) -> dict:
    """The first line with these fields, once the writer has written it (a lasting condition, with a deadline)."""

    def found():
        return next((line for line in audit_lines(trail) if all(line.get(k) == v for k, v in fields.items())), None)

    return wait_until(found, timeout=10, what=what)


def verify(yrden: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(yrden), "audit", "verify", *map(str, files)], capture_output=True, text=True, timeout=30
    )


async def test_a_call_is_recorded_with_its_user_and_a_digest_of_its_arguments_never_their_value(gw):
    secret = f"s3cret-{uuid.uuid4()}"
    arguments = {"message": secret}
    async with mcp_session(gw.url, mode="legacy", headers={"Authorization": f"Bearer {TOKEN}"}) as session:
        assert secret in text_of(await session.client.call_tool("demo__echo", arguments))
        failed = await session.client.call_tool("demo__fail", {"message": secret})
        assert failed.is_error
        with pytest.raises(MCPError):
            await session.client.call_tool("demo__add", {"a": "not a number", "b": secret})
    line = wait_for_line(audit_file(gw), "the echo call's line", arguments=digest(arguments))
    assert line["kind"] == "mcp"
    assert line["user"] == user_of(TOKEN) and line["auth"] == "clientToken"
    assert (line["endpoint"], line["method"], line["tool"], line["server"]) == ("/mcp", "tools/call", "echo", "demo")
    assert line["outcome"] == "ok" and line["durationMs"] >= 0
    assert line["time"].endswith("Z") and isinstance(line["seq"], int) and len(line["prev"]) == 64
    failed = wait_for_line(audit_file(gw), "the failing call's line", tool="fail", arguments=digest({"message": secret}))
    assert failed["outcome"] == "toolError"
    refused = wait_for_line(audit_file(gw), "the refused call's line", tool="add", arguments=digest({"a": "not a number", "b": secret}))
    assert refused["outcome"] == "error" and refused["code"] == -32602
    assert secret not in audit_file(gw).read_text(), "an argument's value was written to the trail"


async def test_an_admin_change_is_recorded_and_a_refused_one_too(gw):
    headers = {"Authorization": f"Bearer {ADMIN}"}
    async with httpx2.AsyncClient(base_url=f"{gw.base}/api/v1", headers=headers, timeout=30) as admin:
        created = await admin.put("/profiles/audited", json={"servers": ["demo"]})
        assert created.status_code in (200, 201), created.text
        missing = await admin.delete("/servers/no-such-server")
        assert missing.status_code == 404, missing.text
        listed = await admin.get("/servers")
        assert listed.status_code == 200
    line = wait_for_line(audit_file(gw), "the profile change's line", kind="admin", path="/api/v1/profiles/audited")
    assert (line["user"], line["method"], line["status"], line["outcome"]) == (
        "admin",
        "PUT",
        created.status_code,
        "ok",
    )
    refused = wait_for_line(audit_file(gw), "the refused delete's line", kind="admin", path="/api/v1/servers/no-such-server")
    assert (refused["method"], refused["status"], refused["outcome"]) == ("DELETE", 404, "refused")
    assert not any(line.get("kind") == "admin" and line.get("method") == "GET" for line in audit_lines(audit_file(gw)))


async def test_verify_finds_an_edited_line_and_a_removed_one(gw, yrden, tmp_path):
    async with mcp_session(gw.url, mode="legacy", headers={"Authorization": f"Bearer {TOKEN}"}) as session:
        for index in range(3):
            await session.client.call_tool("demo__add", {"a": index, "b": 1000})
    wait_for_line(audit_file(gw), "the third add's line", arguments=digest({"a": 2, "b": 1000}))
    text = audit_file(gw).read_text()
    lines = text.splitlines(keepends=True)
    assert len(lines) >= 4

    intact = tmp_path / "intact.jsonl"
    intact.write_text(text)
    ok = verify(yrden, intact)
    assert ok.returncode == 0, ok.stderr
    assert f"ok, {len(lines)} lines" in ok.stdout

    edited = tmp_path / "edited.jsonl"
    changed = json.loads(lines[1])
    changed["user"] = "someone-else"
    edited.write_text("".join([lines[0], json.dumps(changed, separators=(",", ":")) + "\n", *lines[2:]]))
    result = verify(yrden, edited)
    assert result.returncode == 1, result.stdout
    assert f"{edited}:3:" in result.stderr and f"{edited}:2" in result.stderr and "edited" in result.stderr

    removed = tmp_path / "removed.jsonl"
    removed.write_text("".join([lines[0], *lines[2:]]))
    result = verify(yrden, removed)
    assert result.returncode == 1, result.stdout
    assert f"{removed}:2:" in result.stderr and "1 line was removed" in result.stderr


async def test_the_chain_goes_on_across_a_restart(yrden, tmp_path, gateway):
    trail = tmp_path / "trail.jsonl"
    for run in range(2):
        gw = gateway(config(yrden, trail))
        async with mcp_session(gw.url, mode="legacy", headers={"Authorization": f"Bearer {TOKEN}"}) as session:
            await session.client.call_tool("demo__echo", {"message": f"run {run}"})
        wait_for_line(trail, f"run {run}'s line", arguments=digest({"message": f"run {run}"}))
        assert gw.stop() == 0
    assert [line["seq"] for line in audit_lines(trail)] == [1, 2]
    result = verify(yrden, trail)
    assert result.returncode == 0, result.stderr


async def test_a_trail_that_cannot_be_opened_stops_the_start(yrden, tmp_path):
    workdir = tmp_path / "refused"
    workdir.mkdir()
    (workdir / "yrden.json").write_text(json.dumps(config(yrden, tmp_path / "missing-dir" / "audit.jsonl")))
    result = subprocess.run(
        [str(yrden), "serve", "--config", str(workdir / "yrden.json"), "--listen", "127.0.0.1:0"],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=workdir,
    )
    assert result.returncode == 2, result.stderr
    assert "audit" in result.stderr and "missing-dir" in result.stderr


async def test_moving_the_trail_through_the_api_is_refused_as_it_takes_a_restart(gw):
    headers = {"Authorization": f"Bearer {ADMIN}"}
    async with httpx2.AsyncClient(base_url=f"{gw.base}/api/v1", headers=headers, timeout=30) as admin:
        document = (await admin.get("/config")).json()
        document["audit"]["file"] = str(gw.workdir / "elsewhere.jsonl")
        refused = await admin.put("/config", json=document)
    assert refused.status_code == 409, refused.text
    assert "audit.file" in refused.json()["detail"]
    wait_for_line(audit_file(gw), "the refused PUT's line", kind="admin", path="/api/v1/config", status=409)


async def test_an_edit_of_the_config_file_is_recorded_when_reloaded(gw):
    document = json.loads(gw.config_path.read_text())
    document.setdefault("profiles", {})["edited-on-disk"] = {"servers": ["demo"]}
    gw.config_path.write_text(json.dumps(document, indent=2))
    line = wait_for_line(audit_file(gw), "the reload's line", kind="admin", method="reload", outcome="ok")
    assert line["user"] == "config file" and line["path"] == str(gw.config_path)
