"""An upstream that dies: the catalog drops it, calls fail fast, and the gateway brings it back."""

from __future__ import annotations

import os
import re
import signal

import anyio
import pytest
from mcp import MCPError

from harness import MODES, McpSession, await_until, mcp_session, text_of

pytestmark = pytest.mark.parametrize("mode", MODES)

FAIL_FAST = 5.0  # a call to a dead upstream must fail well within this
COME_BACK = 15.0  # backoff starts at 1 s; the restarted server needs well under 15 s
NAMES_SAMPLE = re.compile(r"\bsample\b")  # the server id on its own, not only inside "sample__greet"


def sample_tools(names: set[str]) -> set[str]:
    return {n for n in names if n.startswith("sample__")}


async def expect_fast_failure(session: McpSession, name: str, arguments: dict) -> str:
    """Call ``name``; it must fail within FAIL_FAST s. Returns the error text."""
    started = anyio.current_time()
    with anyio.fail_after(FAIL_FAST + 5):
        try:
            result = await session.client.call_tool(name, arguments)
        except MCPError as e:
            message = e.error.message + (" " + str(e.error.data) if e.error.data is not None else "")
        else:
            assert result.is_error, f"{name} succeeded while its server was down: {text_of(result)}"
            message = text_of(result)
    elapsed = anyio.current_time() - started
    assert elapsed < FAIL_FAST, f"{name} took {elapsed:.1f}s to fail"
    return message


async def test_killed_upstream_leaves_and_comes_back(std_config, gateway, mode):
    gw = gateway(std_config)
    async with mcp_session(gw.url, mode=mode, subscribe=True) as session:
        await session.wait_for_tools({"sample__greet", "demo__echo", "time__get_current_time"})
        victim = gw.child("sample_server.py")
        assert victim is not None, f"no sample server under the gateway: {gw.children()}"
        seen = len(session.notifications)

        os.kill(victim.pid, signal.SIGKILL)

        # 1. Every session hears that the tool list changed.
        await session.wait_for_notification("notifications/tools/list_changed", timeout=10, after=seen)

        # 2. The sample tools are gone; the others stay.
        names = await session.tool_names()
        assert sample_tools(names) == set(), f"sample tools still listed after the crash: {sorted(names)}"
        assert {"demo__echo", "time__get_current_time"} <= names

        # 3. A call to the dead server fails at once, naming it.
        message = await expect_fast_failure(session, "sample__greet", {"name": "ghost"})
        assert NAMES_SAMPLE.search(message), f"the error does not name the server 'sample': {message!r}"

        # 4. The gateway restarts it; its tools come back and work.
        seen = len(session.notifications)
        await await_until(lambda: _has_greet(session), COME_BACK, interval=0.25, what="sample__greet to come back")
        with anyio.fail_after(10):
            result = await session.client.call_tool("sample__greet", {"name": "again"})
        assert text_of(result) == "Hello, again!"
        await session.wait_for_notification("notifications/tools/list_changed", timeout=5, after=seen)

        reborn = gw.child("sample_server.py")
        assert reborn is not None and reborn.pid != victim.pid
        # The other upstreams were not disturbed.
        with anyio.fail_after(10):
            assert not (await session.client.call_tool("time__get_current_time", {"timezone": "UTC"})).is_error


async def _has_greet(session: McpSession) -> bool:
    return "sample__greet" in await session.tool_names()


async def test_call_in_flight_when_upstream_dies_fails_promptly(std_config, gateway, mode):
    gw = gateway(std_config)
    async with mcp_session(gw.url, mode=mode) as session:
        await session.wait_for_tools({"sample__progress"})
        victim = gw.child("sample_server.py")
        assert victim is not None
        outcome: dict = {}
        running = anyio.Event()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            running.set()

        async def long_call() -> None:
            try:
                outcome["result"] = await session.client.call_tool(
                    "sample__progress", {"steps": 100}, progress_callback=on_progress
                )
            except MCPError as e:
                outcome["error"] = e

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(long_call)
                await running.wait()  # its first progress came: the call is running upstream
                killed_at = anyio.current_time()
                os.kill(victim.pid, signal.SIGKILL)
            finished_after = anyio.current_time() - killed_at

        assert finished_after < FAIL_FAST, f"the in-flight call hung {finished_after:.1f}s after its server died"
        if "result" in outcome:
            assert outcome["result"].is_error, f"the call succeeded although its server died: {outcome['result']}"
            message = text_of(outcome["result"])
        else:
            message = outcome["error"].error.message
        assert NAMES_SAMPLE.search(message), f"the error does not name the server 'sample': {message!r}"
