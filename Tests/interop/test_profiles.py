"""Profiles: named views of one gateway (``/mcp/<name>``, ``yrden stdio --profile``, the legacy SSE transport
under ``/mcp/<name>/sse``), each with its own servers, tools, names and descriptions, and the search mode.

The official SDK clients (both eras; 1.x over SSE) against the demo server and ``servers/sample_server.py``,
whose ``add_tool`` changes its tool list at runtime. Profiles are also managed through the admin API and the
CLI, and written back to the config file.
"""

from __future__ import annotations

import json
import subprocess

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from harness import INTEROP_DIR, MODES, PYTHON, REPO_ROOT, SAMPLE_SERVER, clean_env, mcp_session, text_of

VENV_1X = REPO_ROOT / ".venv-1x" / "bin" / "python"
SSE_CLIENT = INTEROP_DIR / "clients" / "client_1x_sse.py"
ADMIN = "profiles-admin-token"
FINDER_TOKEN = "finder-client-token"


def config(yrden) -> dict:
    return {
        "gateway": {"adminToken": ADMIN},
        "mcpServers": {
            "demo": {"command": str(yrden), "args": ["demo-server"]},
            "sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]},
        },
        "profiles": {
            "coding": {
                "servers": ["sample"],
                "tools": {"deny": ["sample__progress", "sample__pid"]},
                "rename": {"sample__greet": "hello"},
                "descriptions": {"hello": "Say hello to someone."},
            },
            "demo-only": {"servers": ["demo"], "tools": {"allow": ["demo__e*", "demo__add"]}},
            "finder": {"toolMode": "search", "clientTokens": [FINDER_TOKEN]},
        },
    }


def admin(gw, method: str, path: str, **kwargs) -> httpx2.Response:
    headers = {"Authorization": f"Bearer {ADMIN}", **kwargs.pop("headers", {})}
    return httpx2.request(method, f"{gw.base}/api/v1{path}", headers=headers, timeout=30, **kwargs)


@pytest.mark.parametrize("mode", MODES)
async def test_two_profiles_see_their_own_servers_tools_and_names(gateway, yrden, mode):
    gw = gateway(config(yrden))
    async with mcp_session(f"{gw.base}/mcp/coding", mode=mode, label="coding") as coding:
        assert await coding.wait_for_tools({"hello", "sample__add_tool"}) == {"hello", "sample__add_tool"}
        assert (await coding.tool("hello")).description == "Say hello to someone."
        with anyio.fail_after(20):
            assert text_of(await coding.client.call_tool("hello", {"name": "Ada"})) == "Hello, Ada!"
            with pytest.raises(MCPError, match="Unknown tool: sample__greet"):  # renamed: the old name is gone
                await coding.client.call_tool("sample__greet", {"name": "Ada"})
            with pytest.raises(MCPError, match="Unknown tool: demo__echo"):  # not one of its servers
                await coding.client.call_tool("demo__echo", {"message": "x"})
            assert [p.name for p in (await coding.client.list_prompts()).prompts] == ["sample__summarize"]
    async with mcp_session(f"{gw.base}/mcp/demo-only", mode=mode, label="demo-only") as demo:
        assert await demo.wait_for_tools({"demo__echo", "demo__add"}) == {"demo__echo", "demo__add"}
        with anyio.fail_after(20):
            assert text_of(await demo.client.call_tool("demo__echo", {"message": "only demo"})) == "only demo"
    first = admin(gw, "GET", "/profiles/coding/tools").json()
    mapping = {t["tool"]["name"]: (t["server"], t["upstreamName"]) for t in first["tools"]}
    assert mapping["hello"] == ("sample", "greet") and first["conflicts"] == []
    second = admin(gw, "GET", "/profiles/coding/tools").json()
    assert first == second, "a profile's list keeps its order and content between changes"


async def test_list_changed_reaches_only_the_profile_whose_list_changed(gateway, yrden):
    gw = gateway(config(yrden))
    async with (
        mcp_session(f"{gw.base}/mcp/coding", mode="legacy", subscribe=True, label="coding") as coding,
        mcp_session(f"{gw.base}/mcp/demo-only", mode="legacy", subscribe=True, label="demo-only") as demo,
    ):
        await coding.wait_for_tools({"hello"})
        await demo.wait_for_tools({"demo__echo"})
        before = len(demo.notifications)
        with anyio.fail_after(20):
            await coding.client.call_tool("sample__add_tool", {"name": "fresh"})
        await coding.wait_for_notification("notifications/tools/list_changed")
        assert "sample__fresh" in await coding.tool_names()
        # A change of demo-only's own, announced after: once all of its announcements are here, one that wrongly
        # went to demo-only for sample's change would be here too, before them on the same stream.
        response = await anyio.to_thread.run_sync(lambda: admin(gw, "POST", "/servers/demo/disconnect"))
        assert response.status_code in (200, 202, 204), response.text
        for method in ("notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"):
            await demo.wait_for_notification(method, after=before)
        changes = [m for m in demo.methods()[before:] if m == "notifications/tools/list_changed"]
        assert len(changes) == 1, f"demo-only heard of sample's change too: {demo.methods()[before:]}"


async def test_search_mode_finds_then_calls_and_keeps_its_own_tokens(gateway, yrden):
    gw = gateway(config(yrden))
    refused = httpx2.post(f"{gw.base}/mcp/finder", json={}, headers={"Accept": "application/json"}, timeout=10)
    assert refused.status_code == 401, "the profile's own client tokens are required"
    headers = {"Authorization": f"Bearer {FINDER_TOKEN}"}
    async with mcp_session(f"{gw.base}/mcp/finder", mode="auto", headers=headers, label="finder") as finder:
        tools = {t.name: t for t in await finder.tools()}
        assert set(tools) == {"search_tools", "call_tool"}
        assert "demo (" in tools["search_tools"].description and "sample (" in tools["search_tools"].description
        with anyio.fail_after(20):
            found = await finder.client.call_tool("search_tools", {"query": "say hello to a person by name"})
            names = [t["name"] for t in found.structured_content["tools"]]
            assert names[0] == "sample__greet", names
            assert found.structured_content["tools"][0]["inputSchema"]["properties"]["name"]
            assert found.structured_content["match"] == "strong"
            nothing = await finder.client.call_tool("search_tools", {"query": "xyzzy plugh"})
            assert nothing.structured_content["match"] == "weak" and nothing.structured_content["tools"], \
                "no match still answers the profile's tools, marked weak"
            assert text_of(nothing).startswith('No tool matches "xyzzy plugh"'), text_of(nothing)
            called = await finder.client.call_tool("call_tool", {"name": names[0], "arguments": {"name": "Ada"}})
            assert text_of(called) == "Hello, Ada!"
            with pytest.raises(MCPError, match="find it with search_tools"):
                await finder.client.call_tool("call_tool", {"name": "nope", "arguments": {}})


async def test_stdio_serves_a_profile(yrden, tmp_path):
    config_file = tmp_path / "yrden.json"
    config_file.write_text(json.dumps(config(yrden)))
    args = ["stdio", "--config", str(config_file), "--profile", "coding"]
    params = StdioServerParameters(command=str(yrden), args=args, env=clean_env())
    with anyio.fail_after(60), (tmp_path / "stderr.log").open("w") as stderr:
        async with Client(stdio_client(params, errlog=stderr), mode="legacy", cache=None) as client:
            names: set[str] = set()
            while "hello" not in names:
                names = {tool.name for tool in (await client.list_tools()).tools}
                await anyio.sleep(0.2)
            assert names == {"hello", "sample__add_tool"}
            assert text_of(await client.call_tool("hello", {"name": "stdio"})) == "Hello, stdio!"
    missing = subprocess.run(
        [str(yrden), "stdio", "--config", str(config_file), "--profile", "nope"],
        capture_output=True, text=True, timeout=30, env=clean_env(), stdin=subprocess.DEVNULL,
    )
    assert missing.returncode == 2 and 'no profile "nope"' in missing.stderr and "coding" in missing.stderr


@pytest.mark.skipif(not VENV_1X.exists(), reason="make test installs .venv-1x (requirements-1x.txt)")
def test_a_2024_host_uses_a_profile_over_sse(gateway, yrden):
    document = config(yrden)
    document["profiles"]["demo-only"]["rename"] = {"demo__echo": "say"}
    gw = gateway(document)
    run = subprocess.run(
        [str(VENV_1X), str(SSE_CLIENT), f"{gw.base}/mcp/demo-only/sse", "say"],
        capture_output=True, text=True, timeout=120, env=clean_env(),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["tools"] == ["demo__add", "say"]
    assert seen["called"] == "over sse"


async def test_profiles_are_managed_through_the_admin_api_and_the_cli(gateway, yrden):
    gw = gateway(config(yrden))
    listed = admin(gw, "GET", "/profiles").json()["profiles"]
    assert [p["name"] for p in listed] == ["coding", "demo-only", "finder"]
    finder = next(p for p in listed if p["name"] == "finder")
    assert FINDER_TOKEN not in json.dumps(listed) and finder["config"]["clientTokens"] == ["********"]

    bad = admin(gw, "PUT", "/profiles/ops", json={"servers": ["sampel"]})
    assert bad.status_code == 400
    problem = bad.json()["errors"][0]
    assert problem["path"] == "profiles.ops.servers[0]" and '"sample"' in problem["fix"], problem

    created = admin(gw, "PUT", "/profiles/ops", json={"servers": ["demo"], "tools": {"allow": ["demo__add"]}})
    assert created.status_code == 201 and created.headers["Location"] == "/api/v1/profiles/ops"
    saved = json.loads((gw.workdir / "yrden.json").read_text())
    assert saved["profiles"]["ops"] == {"servers": ["demo"], "tools": {"allow": ["demo__add"]}}
    async with mcp_session(f"{gw.base}/mcp/ops", mode="legacy", label="ops") as ops:
        assert await ops.wait_for_tools({"demo__add"}) == {"demo__add"}

    # A token sent back as it was shown keeps its value.
    finder_entry = admin(gw, "GET", "/profiles/finder").json()["config"]
    assert admin(gw, "PUT", "/profiles/finder", json=finder_entry).status_code == 200
    saved = json.loads((gw.workdir / "yrden.json").read_text())
    assert saved["profiles"]["finder"]["clientTokens"] == [FINDER_TOKEN]

    in_use = admin(gw, "DELETE", "/servers/demo")
    assert in_use.status_code == 409 and "ops" in in_use.json()["detail"], in_use.text

    env = clean_env({"YRDEN_URL": gw.base, "YRDEN_ADMIN_TOKEN": ADMIN})
    cli = subprocess.run([str(yrden), "profiles", "list"], capture_output=True, text=True, timeout=60, env=env)
    assert cli.returncode == 0, cli.stderr
    assert [line.split()[0] for line in cli.stdout.splitlines()[1:]] == ["coding", "demo-only", "finder", "ops"]
    shown = subprocess.run([str(yrden), "profiles", "show", "coding"], capture_output=True, text=True, timeout=60, env=env)
    assert shown.returncode == 0 and "hello" in shown.stdout and "greet" in shown.stdout, shown.stdout
    removed = subprocess.run([str(yrden), "profiles", "remove", "ops"], capture_output=True, text=True, timeout=60, env=env)
    assert removed.returncode == 0, removed.stderr
    assert httpx2.post(f"{gw.base}/mcp/ops", json={}, timeout=10).status_code == 404
    assert "ops" not in json.loads((gw.workdir / "yrden.json").read_text())["profiles"]
