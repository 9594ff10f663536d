"""`gateway.startupWait`: a client started together with the gateway sees the whole catalog at once.

A host that launches `yrden stdio` sends `initialize` and `tools/list` within milliseconds, while the
upstreams are still starting. Both are held until every enabled server finished its first connection
attempt (or the bound passes: `startupWait` when the config sets it or over HTTP, else each server's own
connect timeout), so the first list is complete and the initialize result carries the
upstreams' extensions (MCP Apps) and instructions, as over HTTP. The sample server here starts slowly on
purpose (`sleep 1` before it execs).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from harness import PYTHON, SAMPLE_SERVER, answer_to, clean_env, raw_mcp, start_gateway

UI_EXTENSION = "io.modelcontextprotocol/ui"
DEMO_AND_SAMPLE = {"demo__echo", "sample__greet"}


def slow_start_config(yrden: Path, *, startup_wait: int | None = None, sample_delay: str = "1") -> dict[str, Any]:
    """The demo server, and the sample server behind `sleep` so that it is not ready when clients arrive."""
    config: dict[str, Any] = {
        "mcpServers": {
            "demo": {"command": str(yrden), "args": ["demo-server"]},
            "sample": {
                "command": "sh",
                "args": ["-c", f'sleep {sample_delay}; exec "$0" "$1"', PYTHON, str(SAMPLE_SERVER)],
            },
        }
    }
    if startup_wait is not None:
        config["gateway"] = {"startupWait": startup_wait}
    return config


def stdio_params(yrden: Path, tmp_path: Path, config: dict[str, Any]) -> StdioServerParameters:
    config_file = tmp_path / "yrden.json"
    config_file.write_text(json.dumps(config))
    return StdioServerParameters(command=str(yrden), args=["stdio", "--config", str(config_file)], env=clean_env())


def capabilities_and_instructions(client: Client) -> tuple[dict[str, Any], str]:
    capabilities = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
    return capabilities, client.instructions or ""


async def test_stdio_first_list_is_complete_and_initialize_advertises_the_upstreams(yrden: Path, tmp_path: Path):
    params = stdio_params(yrden, tmp_path, slow_start_config(yrden))
    with (tmp_path / "stderr.log").open("w") as stderr, anyio.fail_after(60):
        async with Client(stdio_client(params, errlog=stderr), mode="legacy", cache=None) as client:
            first = {tool.name for tool in (await client.list_tools()).tools}
            assert DEMO_AND_SAMPLE <= first, f"the first tools/list missed a server: {sorted(first)}"
            capabilities, instructions = capabilities_and_instructions(client)
            assert UI_EXTENSION in capabilities.get("extensions", {}), capabilities
            assert "## demo" in instructions, instructions
            echoed = await client.call_tool("sample__greet", {"name": "early"})
            assert not echoed.is_error


async def test_stdio_waits_for_a_server_slower_than_startup_wait_within_its_connect_timeout(
    yrden: Path, tmp_path: Path
):
    """A host lists once and keeps the list: without `startupWait` in the config, `yrden stdio` holds the first
    list for each server's first attempt, bounded by that server's own connect timeout, not a fixed 5 s. The
    sample server takes 7 s to start (longer than the default startupWait, well within its 30 s)."""
    config = slow_start_config(yrden, sample_delay="7")
    config["mcpServers"]["sample"]["timeouts"] = {"connect": 30}
    params = stdio_params(yrden, tmp_path, config)
    with (tmp_path / "stderr.log").open("w") as stderr, anyio.fail_after(60):
        started = time.monotonic()
        async with Client(stdio_client(params, errlog=stderr), mode="legacy", cache=None) as client:
            first = {tool.name for tool in (await client.list_tools()).tools}
            waited = time.monotonic() - started
    print(f"launch to first tools/list, a 7 s server: {waited:.2f} s")
    assert DEMO_AND_SAMPLE <= first, f"the first tools/list missed the slow server: {sorted(first)}"


async def test_stdio_and_http_advertise_the_same(yrden: Path, tmp_path: Path):
    config = slow_start_config(yrden, sample_delay="0")
    params = stdio_params(yrden, tmp_path, config)
    with (tmp_path / "stderr.log").open("w") as stderr, anyio.fail_after(60):
        async with Client(stdio_client(params, errlog=stderr), mode="legacy", cache=None) as client:
            over_stdio = capabilities_and_instructions(client)
    gw = start_gateway(yrden, config, tmp_path / "http")
    try:
        async with raw_mcp(gw.url) as raw:
            session = await raw.initialize()
            result = answer_to(session.initialize_response, 0)["result"]
        assert over_stdio == (result["capabilities"], result["instructions"])
    finally:
        gw.stop()


# The sample server must start within the default 5 s startupWait: timed with no other test loading the machine.
@pytest.mark.alone
async def test_http_first_initialize_waits_for_the_first_attempts(yrden: Path, tmp_path: Path):
    gw = start_gateway(yrden, slow_start_config(yrden), tmp_path, ready_path="/healthz")
    try:
        async with httpx2.AsyncClient(timeout=5) as http:
            ready = await http.get(f"{gw.base}/readyz")
        assert ready.status_code == 503, "the sample server should still be starting when the client arrives"
        async with raw_mcp(gw.url) as raw:
            session = await raw.initialize()
            result = answer_to(session.initialize_response, 0)["result"]
            listed = await session.request("tools/list", id=1)
        names = {tool["name"] for tool in listed["result"]["tools"]}
        assert DEMO_AND_SAMPLE <= names, sorted(names)
        assert UI_EXTENSION in result["capabilities"].get("extensions", {}), result["capabilities"]
    finally:
        gw.stop()


async def test_the_wait_is_bounded_by_startup_wait(yrden: Path, tmp_path: Path):
    # The sample server takes 30 s to start: the first list must not wait for it past startupWait (1 s).
    params = stdio_params(yrden, tmp_path, slow_start_config(yrden, startup_wait=1, sample_delay="30"))
    with (tmp_path / "stderr.log").open("w") as stderr, anyio.fail_after(60):
        started = time.monotonic()  # the deadline counts from the gateway's start, so measure from the launch
        async with Client(stdio_client(params, errlog=stderr), mode="legacy", cache=None) as client:
            first = {tool.name for tool in (await client.list_tools()).tools}
            waited = time.monotonic() - started
    print(f"launch to first tools/list, a 30 s server and startupWait 1: {waited:.2f} s")
    assert waited < 10, f"the first list came {waited:.1f} s after launch, far past the 1 s startupWait"
    assert "demo__echo" in first and "sample__greet" not in first, sorted(first)


async def test_startup_wait_zero_answers_at_once(yrden: Path, tmp_path: Path):
    params = stdio_params(yrden, tmp_path, slow_start_config(yrden, startup_wait=0, sample_delay="30"))
    with (tmp_path / "stderr.log").open("w") as stderr, anyio.fail_after(60):
        async with Client(stdio_client(params, errlog=stderr), mode="legacy", cache=None) as client:
            first = {tool.name for tool in (await client.list_tools()).tools}
    assert "sample__greet" not in first, sorted(first)
