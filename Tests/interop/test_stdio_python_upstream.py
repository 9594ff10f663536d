"""A Python SDK server over stdio changes its tool list at runtime; the gateway follows."""

from __future__ import annotations

import anyio
import pytest

from harness import MODES, mcp_session, text_of

pytestmark = pytest.mark.parametrize("mode", MODES)


async def test_list_changed_reaches_the_session_and_the_new_tool_works(std_config, gateway, mode):
    gw = gateway(std_config)
    async with (
        mcp_session(gw.url, mode=mode, subscribe=True, label="actor") as actor,
        mcp_session(gw.url, mode=mode, subscribe=True, label="watcher") as watcher,
    ):
        await actor.wait_for_tools({"sample__add_tool", "demo__echo", "time__get_current_time"})
        before = await actor.tool_names()
        assert "sample__fresh_tool" not in before
        seen = {s: len(s.notifications) for s in (actor, watcher)}

        with anyio.fail_after(15):
            result = await actor.client.call_tool("sample__add_tool", {"name": "fresh_tool"})
        assert text_of(result) == "added fresh_tool"

        # Both sessions are told, not only the one that made the change.
        for s in (actor, watcher):
            await s.wait_for_notification("notifications/tools/list_changed", timeout=10, after=seen[s])

        after = await watcher.wait_for_tools({"sample__fresh_tool"}, timeout=10)
        assert before | {"sample__fresh_tool"} == after, sorted(after ^ before)

        with anyio.fail_after(15):
            called = await watcher.client.call_tool("sample__fresh_tool", {})
        assert not called.is_error
        assert text_of(called) == "fresh_tool was added at runtime"
