"""SIGTERM stops the gateway within 15 s and leaves none of its upstream processes running."""

from __future__ import annotations

import anyio
from mcp import MCPError

from harness import STOP_TIMEOUT, is_running, mcp_session, proc_info, text_of

UPSTREAMS = {"demo": "demo-server", "time": "mcp_server_time", "sample": "sample_server.py"}


def upstream_pids(gw) -> dict[str, int]:
    pids = gw.upstream_pids()
    assert set(pids) == set(UPSTREAMS), f"expected one process per upstream, found {pids}: {gw.children()}"
    return pids


def assert_all_gone(pids: dict[str, int]) -> None:
    """Each pid is gone, or a zombie: it has exited (PID 1 here does not reap orphans)."""
    left = {name: proc_info(pid) for name, pid in pids.items() if is_running(pid)}
    assert not left, f"upstream processes still running after the gateway exited: {left}"


async def test_sigterm_exits_cleanly_and_stops_children(std_config, gateway):
    gw = gateway(std_config)
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"demo__echo", "time__get_current_time", "sample__greet"})
    pids = upstream_pids(gw)

    status = gw.stop(timeout=STOP_TIMEOUT)

    assert not gw.killed, f"yrden ignored SIGTERM for {STOP_TIMEOUT:.0f}s and had to be killed"
    assert status == 0, f"yrden exited with status {status} after SIGTERM"
    assert_all_gone(pids)


async def test_sigterm_with_open_sessions_and_a_call_in_flight(std_config, gateway):
    gw = gateway(std_config)
    outcome: dict = {}
    async with (
        mcp_session(gw.url, mode="legacy", subscribe=True, label="legacy") as legacy,
        mcp_session(gw.url, mode="auto", subscribe=True, label="auto") as auto,
    ):
        await legacy.wait_for_tools({"sample__progress", "demo__slow"})
        await auto.wait_for_tools({"sample__progress"})
        pids = upstream_pids(gw)

        running = anyio.Event()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            running.set()

        async def long_call() -> None:
            try:
                outcome["result"] = await legacy.client.call_tool(
                    "sample__progress", {"steps": 300}, progress_callback=on_progress
                )
            except MCPError as e:
                outcome["error"] = e
            except Exception as e:  # the connection may simply close
                outcome["error"] = e

        async with anyio.create_task_group() as tg:
            tg.start_soon(long_call)
            with anyio.fail_after(20):
                await running.wait()  # its first progress came: the call is in flight upstream
            started = anyio.current_time()
            status = await anyio.to_thread.run_sync(gw.stop)
            stopped_after = anyio.current_time() - started
            # The in-flight call must end (answered or failed), not hang the client.
            with anyio.fail_after(10):
                while not outcome:
                    await anyio.sleep(0.1)

    assert not gw.killed, f"yrden ignored SIGTERM for {STOP_TIMEOUT:.0f}s and had to be killed"
    assert stopped_after < STOP_TIMEOUT
    assert status == 0, f"yrden exited with status {status} after SIGTERM"
    if "result" in outcome:
        # A 300-step call cannot have finished: a result here must be an error.
        assert outcome["result"].is_error, text_of(outcome["result"])
    assert_all_gone(pids)
