"""Upstream servers over Streamable HTTP: their tools appear on the gateway and work through it.

The upstream is ``servers/http_server.py`` (the official Python SDK) on a loopback port. It demands the
bearer token the gateway's config builds from ``${TEST_SECRET}``, so every passing call also shows that the
configured headers are sent; the token must never reach the gateway's log.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import pytest

from harness import INTEROP_DIR, PYTHON, await_until, clean_env, free_port, mcp_session, text_of

HTTP_SERVER = INTEROP_DIR / "servers" / "http_server.py"
SECRET = "yrden-interop-secret-5f2c9a"
START_TIMEOUT = 20.0
# A killed server is noticed when its GET stream cannot be reopened: the HTTP client keeps retrying the
# connection for its 10 s connect timeout first, so leaving takes 10-13 s; coming back takes about 1 s.
LEAVE = 25.0
RETURN = 20.0

VARIANTS = {
    "sse": [],  # stateful, SSE responses, with a GET stream
    "json": ["--json-response"],  # stateful, JSON responses
    "stateless": ["--json-response", "--stateless"],  # no session at all
}


@dataclass
class HttpUpstream:
    port: int
    flags: list[str]
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [PYTHON, str(HTTP_SERVER), "--port", str(self.port), *self.flags],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=clean_env({"HTTP_SERVER_TOKEN": SECRET}),
        )
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"http_server exited: {self.log_path.read_text(errors='replace')}"
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"http_server did not listen on {self.port} within {START_TIMEOUT}s")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def http_upstream(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[HttpUpstream]:
    upstream = HttpUpstream(port=free_port(), flags=VARIANTS[request.param], log_path=tmp_path / "http_server.log")
    upstream.start()
    yield upstream
    upstream.kill()


def remote_config(upstream: HttpUpstream) -> dict:
    return {
        "mcpServers": {
            "remote": {"url": upstream.url, "headers": {"Authorization": "Bearer ${TEST_SECRET}"}},
        }
    }


def remote_tools(names: set[str]) -> set[str]:
    return {n for n in names if n.startswith("remote__")}


@pytest.mark.parametrize("http_upstream", list(VARIANTS), indirect=True)
async def test_http_upstream_tools_are_listed_and_callable(http_upstream, gateway):
    gw = gateway(remote_config(http_upstream), env={"TEST_SECRET": SECRET})
    async with mcp_session(gw.url, mode="legacy") as session:
        names = await session.wait_for_tools({"remote__greet", "remote__progress", "remote__pid"})
        assert remote_tools(names) == {"remote__greet", "remote__progress", "remote__pid"}
        with anyio.fail_after(20):
            result = await session.client.call_tool("remote__greet", {"name": "Yrden"})
        assert not result.is_error, text_of(result)
        assert text_of(result) == "Hello over HTTP, Yrden!"
        with anyio.fail_after(20):
            pid = await session.client.call_tool("remote__pid", {})
        assert text_of(pid) == str(http_upstream.proc.pid)
    assert SECRET not in gw.log_text(), "the bearer token leaked into the gateway's log"


@pytest.mark.parametrize("http_upstream", ["sse"], indirect=True)
async def test_http_upstream_progress_arrives_mid_call(http_upstream, gateway):
    gw = gateway(remote_config(http_upstream), env={"TEST_SECRET": SECRET})
    async with mcp_session(gw.url, mode="legacy", subscribe=True) as session:
        await session.wait_for_tools({"remote__progress"})
        arrivals: list[tuple[float, float]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            arrivals.append((anyio.current_time(), progress))

        with anyio.fail_after(30):
            result = await session.client.call_tool("remote__progress", {"steps": 4}, progress_callback=on_progress)
        finished = anyio.current_time()
        assert not result.is_error, text_of(result)
        assert text_of(result) == "counted to 4"
        assert [p for _, p in arrivals] == [1, 2, 3, 4], arrivals
        # The steps are 0.3 s apart: the first must arrive well before the result, not bunched up with it.
        assert finished - arrivals[0][0] > 0.5, f"progress arrived only with the result: {arrivals}, end {finished}"
    assert SECRET not in gw.log_text(), "the bearer token leaked into the gateway's log"


@pytest.mark.parametrize("http_upstream", ["sse"], indirect=True)
async def test_http_upstream_restart_leaves_and_returns(http_upstream, gateway):
    gw = gateway(remote_config(http_upstream), env={"TEST_SECRET": SECRET})
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"remote__pid"})
        old_pid = http_upstream.proc.pid

        http_upstream.kill()

        async def gone() -> bool:
            return not remote_tools(await session.tool_names())

        await await_until(gone, LEAVE, interval=0.25, what="remote tools to leave")

        http_upstream.start()
        await session.wait_for_tools({"remote__greet", "remote__pid"}, timeout=RETURN)
        with anyio.fail_after(20):
            pid = await session.client.call_tool("remote__pid", {})
        assert not pid.is_error, text_of(pid)
        assert text_of(pid) == str(http_upstream.proc.pid) != str(old_pid)
    assert SECRET not in gw.log_text(), "the bearer token leaked into the gateway's log"


@pytest.mark.parametrize("http_upstream", ["sse"], indirect=True)
async def test_http_upstream_refusal_names_the_status(http_upstream, gateway):
    wrong = "wrong-token-7d1e"
    gw = gateway(remote_config(http_upstream), env={"TEST_SECRET": wrong})
    async with httpx2.AsyncClient(timeout=5.0) as http:

        async def failure() -> dict | None:
            remote = (await http.get(f"{gw.base}/healthz")).json()["servers"]["remote"]
            return remote if "lastError" in remote else None

        remote = await await_until(failure, 20, interval=0.25, what="remote to report its failure")
    assert remote["state"] != "connected", remote
    assert "HTTP 401" in remote["lastError"]["message"], remote
    async with mcp_session(gw.url, mode="legacy") as session:
        assert not remote_tools(await session.tool_names())
    assert wrong not in gw.log_text(), "the bearer token leaked into the gateway's log"
