"""Progress notifications reach the session that made the call, and only that one."""

from __future__ import annotations

import anyio
import pytest

from harness import MODES, McpSession, mcp_session, text_of

pytestmark = pytest.mark.parametrize("mode", MODES)

class ProgressLog:
    def __init__(self) -> None:
        self.updates: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.updates.append((progress, total, message))


def progress_seen(session: McpSession) -> list:
    return session.received("notifications/progress")


async def test_sample_progress_reaches_only_the_caller(std_config, gateway, mode):
    gw = gateway(std_config)
    async with (
        mcp_session(gw.url, mode=mode, subscribe=True, label="caller") as caller,
        mcp_session(gw.url, mode=mode, subscribe=True, label="bystander") as bystander,
    ):
        await caller.wait_for_tools({"sample__progress"})
        log = ProgressLog()
        with anyio.fail_after(20):
            result = await caller.client.call_tool("sample__progress", {"steps": 5}, progress_callback=log)
        assert not result.is_error, text_of(result)
        assert text_of(result) == "counted to 5"

        assert [u[0] for u in log.updates] == [1, 2, 3, 4, 5], log.updates
        assert all(u[1] == 5 for u in log.updates), log.updates
        assert log.updates[-1][2] == "step 5 of 5"

        # The sample server's next message, a list change for every session, comes after its progress: once
        # the bystander has it, progress that was wrongly sent its way would have come before it.
        seen = len(bystander.notifications)
        with anyio.fail_after(20):
            await caller.client.call_tool("sample__add_tool", {"name": "after_progress"})
        await bystander.wait_for_notification("notifications/tools/list_changed", after=seen)
        assert progress_seen(bystander) == [], "the other session received the caller's progress"


async def test_demo_slow_reports_progress(std_config, gateway, mode):
    gw = gateway(std_config)
    async with mcp_session(gw.url, mode=mode, subscribe=True, label="caller") as caller:
        await caller.wait_for_tools({"demo__slow"})
        slow = await caller.tool("demo__slow")
        props = slow.input_schema.get("properties") or {}
        assert "seconds" in props, f"demo__slow has no `seconds` argument: {slow.input_schema}"
        log = ProgressLog()
        started = anyio.current_time()
        with anyio.fail_after(20):
            result = await caller.client.call_tool("demo__slow", {"seconds": 2}, progress_callback=log)
        elapsed = anyio.current_time() - started
        assert not result.is_error, text_of(result)
        assert len(log.updates) >= 2, f"expected progress over 2 s, got {log.updates}"
        values = [u[0] for u in log.updates]
        assert values == sorted(values) and len(set(values)) == len(values), f"progress must increase: {values}"
        assert elapsed >= 1.5, f"demo__slow(2) took only {elapsed:.2f}s"


async def test_concurrent_callers_each_get_their_own_progress(std_config, gateway, mode):
    """Both SDK clients number their requests alike, so their progress tokens collide upstream
    unless the gateway maps them: each caller must see exactly its own updates."""
    gw = gateway(std_config)
    async with (
        mcp_session(gw.url, mode=mode, subscribe=True, label="a") as a,
        mcp_session(gw.url, mode=mode, subscribe=True, label="b") as b,
    ):
        await a.wait_for_tools({"sample__progress"})
        await b.wait_for_tools({"sample__progress"})
        logs = {"a": ProgressLog(), "b": ProgressLog()}
        results = {}

        async def call(key: str, session: McpSession, steps: int) -> None:
            results[key] = await session.client.call_tool(
                "sample__progress", {"steps": steps}, progress_callback=logs[key]
            )

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(call, "a", a, 3)
                tg.start_soon(call, "b", b, 7)

        assert text_of(results["a"]) == "counted to 3"
        assert text_of(results["b"]) == "counted to 7"
        assert [u[0] for u in logs["a"].updates] == [1, 2, 3], logs["a"].updates
        assert [u[0] for u in logs["b"].updates] == [1, 2, 3, 4, 5, 6, 7], logs["b"].updates
        assert {u[1] for u in logs["a"].updates} == {3}
        assert {u[1] for u in logs["b"].updates} == {7}
