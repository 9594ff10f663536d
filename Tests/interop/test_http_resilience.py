"""HTTP upstreams that misbehave: what the gateway retries, what it never repeats, and what a client sees.

The upstream is ``servers/flaky_server.py`` (the official Python SDK behind a small middleware): the test
tells it, through ``POST /control``, to answer the next N matching MCP requests with an HTTP status, asks it
what it saw (``GET /control/stats``: requests per method, tool runs, cancellations, sessions, open GET
streams), and can make it forget every session as a restart would. The gateway is configured with the
upstream as ``remote``, so its tools are ``remote__echo``, ``remote__hang``...

The rules under test: a network error or 5xx is retried (three times, within about two seconds) for
requests that only read, never for ``tools/call``; a 4xx never; 401/403 is an ``auth`` failure; a 404 for
the session renews it and resends the message once; tool calls have a deadline (progress extends it up to
4x) after which the upstream is told ``notifications/cancelled``; a killed upstream is noticed by its GET
stream and reconnected per the server's ``reconnect`` policy; an upstream's own JSON-RPC error reaches the
client unchanged.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import MCPError

from harness import (
    INTEROP_DIR,
    JSON_AND_SSE,
    MODERN_VERSION,
    PYTHON,
    Gateway,
    admin_events,
    await_until,
    clean_env,
    free_port,
    mcp_session,
    text_of,
    wait_for_server_state,
)

FLAKY_SERVER = INTEROP_DIR / "servers" / "flaky_server.py"
START_TIMEOUT = 20.0
RETRY_DELAYS = (0.1, 0.4, 1.5)  # HTTPConnection.retryDelays
RETRY_LADDER = sum(RETRY_DELAYS)  # every retry of one request is over by then
SETTLE = RETRY_LADDER + 0.8  # wait this long before counting what was (not) retried
NOTICE = 8.0  # a killed upstream is noticed by its GET stream within ~2.5 s; generous bound
CALL_TIMEOUT = 20.0
CONCURRENT_CALLS = 8
# A reconnect policy that will not retry within a test, so every request the upstream counts is one the
# transport sent (or retried), not a new connection's.
NO_RECONNECT_SOON = {"initialDelay": 30, "maxDelay": 60}
DROP = 0  # flaky_server's "status" for a connection that breaks off mid-response
TIMED_OUT = re.compile(r"time", re.IGNORECASE)  # "did not answer in time", "timed out", "timeout"


# ---------------------------------------------------------------------------
# The flaky upstream


@dataclass
class FlakyUpstream:
    port: int
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [PYTHON, str(FLAKY_SERVER), "--port", str(self.port)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=clean_env(),
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"flaky_server exited: {self.log_path.read_text(errors='replace')}"
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise TimeoutError(f"flaky_server did not listen on {self.port} within {START_TIMEOUT}s")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    async def control(self, fail_next: int, status: int = 500, methods: list[str] | None = None) -> None:
        order: dict[str, Any] = {"fail_next": fail_next, "status": status}
        if methods is not None:
            order["methods"] = methods
        async with httpx2.AsyncClient(timeout=5.0) as http:
            r = await http.post(f"{self.base}/control", json=order)
        assert r.status_code == 200, r.text

    async def stats(self) -> dict[str, Any]:
        async with httpx2.AsyncClient(timeout=5.0) as http:
            r = await http.get(f"{self.base}/control/stats")
        assert r.status_code == 200, r.text
        return r.json()

    async def delay(self, **seconds_by_method: float) -> None:
        async with httpx2.AsyncClient(timeout=5.0) as http:
            r = await http.post(f"{self.base}/control/delay", json=seconds_by_method)
        assert r.status_code == 200, r.text

    async def forget_sessions(self) -> list[str]:
        async with httpx2.AsyncClient(timeout=5.0) as http:
            r = await http.post(f"{self.base}/control/forget-sessions")
        assert r.status_code == 200, r.text
        return r.json()["forgotten"]


@pytest.fixture
def flaky(tmp_path: Path) -> Iterator[FlakyUpstream]:
    upstream = FlakyUpstream(port=free_port(), log_path=tmp_path / "flaky_server.log")
    upstream.start()
    yield upstream
    upstream.kill()


def remote_config(upstream: FlakyUpstream, **policies: Any) -> dict[str, Any]:
    # The rules under test are the handshake era's (a session to renew, a GET stream): pinned to it, since
    # the SDK's server would otherwise be spoken to in 2026-07-28. `policies` may pin the other era.
    return {"mcpServers": {"remote": {"url": upstream.url, "protocol": "2025-11-25", **policies}}}


def remote_tools(names: set[str]) -> set[str]:
    return {n for n in names if n.startswith("remote__")}


async def remote_health(gw: Gateway) -> dict[str, Any]:
    async with httpx2.AsyncClient(timeout=5.0) as http:
        r = await http.get(f"{gw.base}/healthz")
    assert r.status_code == 200, r.text
    return r.json()["servers"]["remote"]


async def wait_for_state(gw: Gateway, state: str, timeout: float) -> dict[str, Any]:
    """The remote's view once it is in ``state`` (a state it stays in, or one it reaches after this call)."""
    return await wait_for_server_state(gw, "remote", state, timeout)


@asynccontextmanager
async def connected(gw: Gateway, *, subscribe: bool = False) -> AsyncIterator[Any]:
    """An SDK client session on the gateway, once the remote tools are listed."""
    async with mcp_session(gw.url, mode="legacy", subscribe=subscribe) as session:
        await session.wait_for_tools({"remote__echo"}, timeout=10)
        yield session


async def call_error(session: Any, name: str, arguments: dict[str, Any]) -> tuple[str, float]:
    """Call ``name``, which must fail with a JSON-RPC error; its message (plus data) and how long it took."""
    started = anyio.current_time()
    with anyio.fail_after(CALL_TIMEOUT):
        try:
            result = await session.client.call_tool(name, arguments)
        except MCPError as e:
            data = f" {e.error.data}" if e.error.data is not None else ""
            return e.error.message + data, anyio.current_time() - started
    raise AssertionError(f"{name} succeeded: {text_of(result)!r} (is_error={result.is_error})")


async def call_text(session: Any, name: str, arguments: dict[str, Any]) -> str:
    with anyio.fail_after(CALL_TIMEOUT):
        result = await session.client.call_tool(name, arguments)
    assert not result.is_error, f"{name} failed: {text_of(result)}"
    return text_of(result)


# ---------------------------------------------------------------------------
# Retries


@pytest.mark.parametrize(
    ("method", "status", "fail_next", "posts", "outcome"),
    [
        pytest.param("tools/list", 500, 2, 3, "connected", id="tools/list-500-twice-retried"),
        pytest.param("tools/list", DROP, 2, 3, "connected", id="tools/list-dropped-twice-retried"),
        pytest.param("initialize", 502, 2, 3, "connected", id="initialize-502-twice-retried"),
        pytest.param("tools/list", 503, 100, 4, "failed", id="tools/list-503-always-three-retries"),
        pytest.param("tools/list", 429, 1, 1, "failed", id="tools/list-429-never-retried"),
    ],
)
async def test_read_requests_are_retried_on_5xx_and_network_errors_only(
    flaky, gateway, method, status, fail_next, posts, outcome
):
    await flaky.control(fail_next, status, methods=[method])
    gw = gateway(remote_config(flaky, reconnect=NO_RECONNECT_SOON))  # ready: its first connection settled

    remote = await remote_health(gw)
    assert remote["state"] == outcome, remote
    if outcome == "connected":
        async with connected(gw) as session:
            assert await call_text(session, "remote__echo", {"text": "after retries"}) == "after retries"
    else:
        assert remote["lastError"]["kind"] == "http", remote
        assert f"HTTP {status}" in remote["lastError"]["message"], remote
    await anyio.sleep(SETTLE)
    seen = await flaky.stats()
    assert seen["requests"].get(method) == posts, seen
    assert seen["failed"].get(method) == min(fail_next, posts), seen
    if method != "initialize":
        assert seen["requests"].get("initialize") == 1, f"the connection was retried instead of the request: {seen}"
    # Backoff, not a burst: the retries wait 100 ms, 400 ms and 1.5 s.
    times = seen["arrivals"][method]
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    for gap, planned in zip(gaps, RETRY_DELAYS):
        assert gap >= planned * 0.9, f"retries came {[round(g, 3) for g in gaps]} s apart; planned {RETRY_DELAYS}"


async def test_tools_list_refresh_after_list_changed_is_retried(flaky, gateway):
    gw = gateway(remote_config(flaky, reconnect=NO_RECONNECT_SOON))
    async with connected(gw) as session:
        before = (await flaky.stats())["requests"]["tools/list"]
        await flaky.control(2, 502, methods=["tools/list"])

        assert await call_text(session, "remote__add_tool", {"name": "late"}) == "added late"

        await session.wait_for_tools({"remote__late"}, timeout=10)
        assert await call_text(session, "remote__late", {}) == "late was added at runtime"
        seen = await flaky.stats()
        assert seen["requests"]["tools/list"] == before + 3, seen
        assert (await remote_health(gw))["state"] == "connected"


@pytest.mark.parametrize("status", [500, 401, DROP], ids=["500", "401", "dropped"])
async def test_tool_call_is_never_retried(flaky, gateway, status):
    gw = gateway(remote_config(flaky, reconnect=NO_RECONNECT_SOON))
    async with connected(gw) as session:
        # One failure only: a retried call would succeed, and the client would see no error.
        await flaky.control(1, status, methods=["tools/call"])

        message, _ = await call_error(session, "remote__echo", {"text": "once"})

        assert "remote" in message, message
        if status != DROP:
            assert f"HTTP {status}" in message, message
        await anyio.sleep(SETTLE)
        seen = await flaky.stats()
        assert seen["requests"].get("tools/call") == 1, seen
        assert seen["tools"].get("echo") is None, seen
        # One refused request does not take the server down.
        assert (await remote_health(gw))["state"] == "connected"
        assert await call_text(session, "remote__echo", {"text": "next"}) == "next"


@pytest.mark.parametrize("status", [401, 403])
async def test_unauthorized_upstream_fails_with_auth_and_is_not_retried(flaky, gateway, status):
    await flaky.control(1000, status)
    gw = gateway(remote_config(flaky, reconnect=NO_RECONNECT_SOON))

    remote = await wait_for_state(gw, "failed", 10)
    assert remote["lastError"]["kind"] == "auth", remote
    assert f"HTTP {status}" in remote["lastError"]["message"], remote
    async with mcp_session(gw.url, mode="legacy") as session:
        assert not remote_tools(await session.tool_names())
        message, _ = await call_error(session, "remote__echo", {"text": "x"})
        assert "remote" in message and f"HTTP {status}" in message, message
    await anyio.sleep(SETTLE)
    seen = await flaky.stats()
    assert seen["requests"] == {"initialize": 1}, f"a {status} was retried: {seen}"


# ---------------------------------------------------------------------------
# Sessions and restarts


@pytest.mark.parametrize("noticed_by", ["call", "concurrent-calls", "stream", "stream-then-call"])
async def test_forgotten_session_is_renewed_transparently(flaky, gateway, noticed_by):
    """The upstream forgets its sessions (as a restart would): the gateway initializes a new one, once.

    ``call``: a tool call meets the 404 first and is resent after the renewal; ``concurrent-calls``: eight
    calls meet it together and share one renewal (the server takes 0.5 s to initialize, so they all meet it
    while the renewal is under way); ``stream``: nobody calls, and the GET stream, reopened with the old
    session, meets it; ``stream-then-call``: a call comes while the renewal the GET stream started is under
    way (the server takes 1 s to initialize).
    """
    calls = {"call": 1, "concurrent-calls": CONCURRENT_CALLS, "stream": 0, "stream-then-call": 1}[noticed_by]
    gw = gateway(remote_config(flaky))
    async with connected(gw) as session:
        assert await call_text(session, "remote__echo", {"text": "first"}) == "first"
        assert (await flaky.stats())["requests"]["initialize"] == 1
        if noticed_by == "concurrent-calls":
            await flaky.delay(initialize=0.5)
        if noticed_by == "stream-then-call":
            await flaky.delay(initialize=1.0)
        forgotten = await flaky.forget_sessions()
        assert len(forgotten) == 1, forgotten
        if noticed_by == "stream-then-call":
            await await_until(
                lambda: _initializes_seen(flaky, 2), 5, interval=0.05, what="the GET stream to start a renewal"
            )

        answers: dict[int, str] = {}

        async def call(i: int) -> None:
            try:
                answers[i] = await call_text(session, "remote__echo", {"text": f"again {i}"})
            except MCPError as e:
                answers[i] = f"MCPError {e.error.code}: {e.error.message}"

        async with anyio.create_task_group() as tg:
            for i in range(calls):
                tg.start_soon(call, i)
        failures = {i: answer for i, answer in answers.items() if answer != f"again {i}"}
        assert len(answers) == calls and not failures, (
            f"{len(failures)} of {calls} calls failed: {sorted(set(failures.values()))}; "
            f"requests the upstream saw without a session: {(await flaky.stats())['without_session']}"
        )

        # The GET stream follows the new session, so the upstream's notifications still arrive.
        async def listening() -> dict[str, Any] | None:
            now = await flaky.stats()
            return now if set(now["get_streams"]) & set(now["sessions"]) else None

        try:
            seen = await await_until(listening, 5, interval=0.1)
        except TimeoutError:
            raise AssertionError(f"no GET stream on a live session: {await flaky.stats()}") from None
        assert seen["requests"]["initialize"] == 2, seen
        assert set(seen["without_session"]) <= {"initialize"}, f"sent outside any session: {seen}"
        assert set(seen["sessions"]).isdisjoint(forgotten), seen
        assert seen["tools"]["echo"] == 1 + calls, f"a call ran twice or not at all: {seen}"
        assert await call_text(session, "remote__add_tool", {"name": "renewed"}) == "added renewed"
        await session.wait_for_tools({"remote__renewed"}, timeout=10)
        assert (await flaky.stats())["requests"]["initialize"] == 2
        assert (await remote_health(gw))["state"] == "connected"


async def _initializes_seen(flaky: FlakyUpstream, count: int) -> bool:
    return (await flaky.stats())["requests"].get("initialize", 0) >= count


async def test_restarted_upstream_serves_the_next_call(flaky, gateway):
    gw = gateway(remote_config(flaky))
    async with connected(gw) as session:
        old_pid = await call_text(session, "remote__pid", {})
        flaky.kill()
        flaky.start()  # same port
        assert flaky.proc is not None
        back = anyio.current_time()

        failures: list[str] = []

        async def answered() -> str | None:
            try:
                with anyio.fail_after(5):
                    result = await session.client.call_tool("remote__pid", {})
            except (MCPError, TimeoutError) as e:
                failures.append(repr(e))
                return None
            return text_of(result) if not result.is_error else None

        try:
            pid = await await_until(answered, 5, interval=0.2)
        except TimeoutError:
            raise AssertionError(f"no call succeeded within 5 s of the restart; errors: {failures}") from None
        assert pid == str(flaky.proc.pid) != old_pid, (pid, old_pid, flaky.proc.pid)
        assert anyio.current_time() - back < 5


# ---------------------------------------------------------------------------
# Deadlines


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_tool_call_past_its_deadline_times_out_and_is_cancelled_upstream(flaky, gateway, protocol):
    """Handshake era: `notifications/cancelled` tells the upstream. 2026-07-28: closing the call's stream does,
    and no notification is sent."""
    gw = gateway(remote_config(flaky, timeouts={"toolCall": 2}, protocol=protocol))
    async with connected(gw) as session:
        message, elapsed = await call_error(session, "remote__hang", {"seconds": 60})

        assert 1.9 <= elapsed <= 5.0, f"the 2 s deadline fired after {elapsed:.1f}s: {message}"
        assert "remote" in message and TIMED_OUT.search(message), message

        async def cancelled() -> dict[str, Any] | None:
            seen = await flaky.stats()
            return seen if seen["hang"].get("cancelled") == 1 else None

        try:
            seen = await await_until(cancelled, 3, interval=0.1)
        except TimeoutError:
            raise AssertionError(f"the upstream never saw the cancellation: {await flaky.stats()}") from None
        assert len(seen["cancellations"]) == (1 if protocol == "2025-11-25" else 0), seen
        assert seen["hang"].get("finished") is None, seen
        # The server is fine: only the call was given up.
        assert (await remote_health(gw))["state"] == "connected"
        assert await call_text(session, "remote__echo", {"text": "still here"}) == "still here"


async def test_a_stateless_call_whose_stream_the_client_closes_is_cancelled_upstream(flaky, gateway):
    """2026-07-28 has no notifications/cancelled from an HTTP client: closing the request's stream is how it
    cancels, and the gateway passes that on."""
    gw = gateway(remote_config(flaky))
    async with connected(gw):
        pass  # the remote tools are listed
    envelope = {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": "t1",
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "remote__tick", "arguments": {"seconds": 60, "interval": 0.2}, "_meta": envelope},
    }
    headers = {
        "Accept": JSON_AND_SSE,
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN_VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "remote__tick",
    }
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(10, read=30)) as http:
        async with http.stream("POST", gw.url, content=json.dumps(body).encode(), headers=headers) as response:
            assert response.status_code == 200
            with anyio.fail_after(10):
                async for chunk in response.aiter_text():
                    if "notifications/progress" in chunk:
                        break  # one progress event came: the call runs; now leave
    try:
        seen = await await_until(lambda: _cancellations(flaky), 5, interval=0.1, what="notifications/cancelled")
    except TimeoutError:
        raise AssertionError(f"the upstream never saw the cancellation: {await flaky.stats()}") from None
    assert len(seen) == 1, seen
    assert (await remote_health(gw))["state"] == "connected"


async def test_progress_extends_the_deadline_up_to_four_times(flaky, gateway):
    gw = gateway(remote_config(flaky, timeouts={"toolCall": 1}))
    async with connected(gw) as session:
        ticks: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            ticks.append(progress)

        # 2.5 s with progress every 0.4 s: past the 1 s timeout, within 4 x 1 s.
        with anyio.fail_after(CALL_TIMEOUT):
            result = await session.client.call_tool(
                "remote__tick", {"seconds": 2.5, "interval": 0.4}, progress_callback=on_progress
            )
        assert not result.is_error, text_of(result)
        assert text_of(result) == "ticked for 2.5 s"
        assert len(ticks) >= 5, ticks

        # Progress forever: cut off at 4 x 1 s all the same.
        started = anyio.current_time()
        with anyio.fail_after(CALL_TIMEOUT):
            try:
                await session.client.call_tool(
                    "remote__tick", {"seconds": 30, "interval": 0.4}, progress_callback=on_progress
                )
            except MCPError as e:
                message = e.error.message
            else:
                raise AssertionError("a call with endless progress was never cut off")
        elapsed = anyio.current_time() - started
        assert 3.5 <= elapsed <= 6.0, f"cut off after {elapsed:.1f}s, not at 4 x the 1 s timeout: {message}"
        assert TIMED_OUT.search(message), message
        await await_until(
            lambda: _cancellations(flaky), 3, interval=0.1, what="notifications/cancelled for the endless tick"
        )


async def _cancellations(flaky: FlakyUpstream) -> list[Any]:
    return (await flaky.stats())["cancellations"]


# ---------------------------------------------------------------------------
# Errors that are the upstream's own


async def test_upstream_errors_pass_through_unchanged(flaky, gateway):
    gw = gateway(remote_config(flaky))
    async with mcp_session(flaky.url, mode="legacy") as direct, connected(gw) as session:
        with anyio.fail_after(CALL_TIMEOUT):
            expected = await direct.client.call_tool("fail", {"message": "the disk is full"})
            got = await session.client.call_tool("remote__fail", {"message": "the disk is full"})
        assert expected.is_error and "the disk is full" in text_of(expected), expected
        assert got.is_error, got
        assert got.content == expected.content, (got, expected)

        errors = []
        for client, name in ((direct.client, "reject"), (session.client, "remote__reject")):
            with anyio.fail_after(CALL_TIMEOUT), pytest.raises(MCPError) as caught:
                await client.call_tool(name, {"code": -32042, "message": "quota exceeded"})
            errors.append(caught.value.error)
        expected_error, got_error = errors
        assert expected_error.code == -32042 and expected_error.message == "quota exceeded", expected_error
        assert (got_error.code, got_error.message, got_error.data) == (
            expected_error.code,
            expected_error.message,
            expected_error.data,
        )
        assert (await remote_health(gw))["state"] == "connected"


# ---------------------------------------------------------------------------
# Losing the upstream


async def test_killed_upstream_with_reconnect_never_stays_failed(flaky, gateway):
    gw = gateway(remote_config(flaky, reconnect="never"))
    async with connected(gw) as session:
        in_flight: dict[str, Any] = {}

        async def hang() -> None:
            in_flight["message"], _ = await call_error(session, "remote__hang", {"seconds": 60})
            in_flight["ended"] = anyio.current_time()

        async with anyio.create_task_group() as tg:
            tg.start_soon(hang)
            await await_until(lambda: _hangs_started(flaky), 5, interval=0.05, what="the hang call to start")
            flaky.kill()
            killed = anyio.current_time()

        # The call in flight fails with the transport's reason at once, not at its 300 s deadline.
        assert in_flight["ended"] - killed < 2, f"the call in flight failed {in_flight['ended'] - killed:.1f}s late"
        assert "remote" in in_flight["message"], in_flight
        remote = await wait_for_state(gw, "failed", NOTICE)
        assert remote["lastError"]["kind"] in {"network", "http"}, remote
        flaky.start()  # it could come back now; the policy says it must not
        await anyio.sleep(3)

        remote = await remote_health(gw)
        assert remote["state"] == "failed", remote
        assert (await flaky.stats())["requests"] == {}, "the gateway reconnected despite reconnect: never"
        assert not remote_tools(await session.tool_names())
        message, _ = await call_error(session, "remote__echo", {"text": "x"})
        assert "remote" in message, message


async def _hangs_started(flaky: FlakyUpstream) -> bool:
    return bool((await flaky.stats())["hang"].get("started"))


async def test_killed_upstream_comes_back_and_clients_hear_it(flaky, gateway):
    gw = gateway(remote_config(flaky))

    # The event stream is open before the kill, so the short `failed` between two reconnect attempts is seen
    # however short it is (sampling /healthz every 50 ms missed it).
    async with admin_events(gw) as events, connected(gw, subscribe=True) as session:
        assert (await events.server("remote"))["state"] == "connected"
        killed_at = events.mark()
        seen = len(session.notifications)
        flaky.kill()

        await session.wait_for_notification("notifications/tools/list_changed", timeout=NOTICE, after=seen)
        assert not remote_tools(await session.tool_names())
        failed = await events.wait_for_state("remote", "failed", NOTICE, after=killed_at)
        assert failed["lastError"]["kind"] in {"network", "http"}, failed

        seen = len(session.notifications)
        back_at = events.mark()
        flaky.start()
        await session.wait_for_notification("notifications/tools/list_changed", timeout=NOTICE, after=seen)
        assert {"remote__echo", "remote__hang"} <= remote_tools(await session.tool_names())
        await events.wait_for_state("remote", "connected", NOTICE, after=back_at)
        assert await call_text(session, "remote__echo", {"text": "back"}) == "back"

        states = events.states("remote", after=killed_at)
    assert states[-1] == "connected", states
    failed_at = states.index("failed")
    assert set(states[failed_at:]) <= {"failed", "connecting", "connected"}, states
