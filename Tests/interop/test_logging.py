"""Upstreams' log messages reach the clients that asked for them, at their level, naming the server.

A handshake-era client asks with ``logging/setLevel`` for its session; a 2026-07-28 client with
``_meta.logLevel`` on a request. The upstream is ``servers/asking_server.py`` (its ``log_lines`` tool logs a
debug, an info and a warning line) over stdio and Streamable HTTP, in either era.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from harness import ASKING_SERVER, MODERN_VERSION, PYTHON, await_until, clean_env, mcp_session, text_of
from test_metrics import sample


def entry(transport: str, url: str | None, protocol: str) -> dict:
    if transport == "http":
        return {"url": url, "protocol": protocol}
    return {"command": PYTHON, "args": [str(ASKING_SERVER)], "protocol": protocol}


async def collect_logs(session_kwargs: dict, gw_url: str, mode: str, set_level: str | None) -> tuple[str, list]:
    received: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append(params)

    async with mcp_session(gw_url, mode=mode, subscribe=True, logging_callback=on_log, **session_kwargs) as s:
        await s.wait_for_tools({"asking__log_lines"})
        if set_level:
            with anyio.fail_after(15):
                await s.client.set_logging_level(set_level)
        with anyio.fail_after(20):
            result = await s.client.call_tool("asking__log_lines", {})
        if set_level or session_kwargs.get("log_level"):
            # The server logs debug, info, then warning, and all three take the same way to the client: once
            # the warning line is here, a debug line that was let through would be here too.
            with anyio.move_on_after(10):  # if it never comes, the caller's assertion shows what did
                while not any(m.data == "warning line" for m in received):
                    await anyio.sleep(0.05)
        # A session that asked for nothing: the lines would come on the call's own stream, before its answer.
    return text_of(result), received


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_a_session_gets_the_log_lines_at_its_level(gateway, http_asking, transport, protocol):
    gw = gateway({"mcpServers": {"asking": entry(transport, http_asking, protocol)}})
    text, received = await collect_logs({}, gw.url, "legacy", "info")
    assert text == "logged"
    assert [(m.level, m.data) for m in received] == [("info", "info line"), ("warning", "warning line")]
    assert {m.logger for m in received} == {"asking/lines"}


async def test_a_session_that_did_not_ask_gets_none(gateway, http_asking):
    gw = gateway({"mcpServers": {"asking": entry("http", http_asking, "2025-11-25")}})
    text, received = await collect_logs({}, gw.url, "legacy", None)
    assert text == "logged"
    assert received == []


# Over stdio a message does not say its request. It is the one request in flight that asked for logs (as a
# server's own requests are attributed), whether the server is of 2026-07-28 (which logs only for such
# requests) or of the handshake era (which logs for its session with the gateway); with several asking, whose
# it is cannot be told and it is dropped, and counted.
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_a_modern_request_gets_the_log_lines_it_opted_into(gateway, http_asking, transport, protocol):
    gw = gateway({"mcpServers": {"asking": entry(transport, http_asking, protocol)}})
    text, received = await collect_logs({"log_level": "warning"}, gw.url, "auto", None)
    assert text == "logged"
    assert [(m.level, m.data) for m in received] == [("warning", "warning line")]


async def test_an_unknown_level_is_refused(gateway, http_asking):
    gw = gateway({"mcpServers": {"asking": entry("http", http_asking, "2025-11-25")}})
    async with mcp_session(gw.url, mode="legacy") as s:
        with pytest.raises(Exception, match="(?i)level"):
            with anyio.fail_after(15):
                await s.client.set_logging_level("loud")  # type: ignore[arg-type]


async def test_yrden_stdio_gives_a_modern_request_the_log_lines_of_a_handshake_era_stdio_server(
    yrden: Path, tmp_path: Path
):
    """The SDK launches `yrden stdio` and speaks 2026-07-28 to it; the upstream is a handshake-era stdio server,
    whose messages say no request: they are the one call's that asked."""
    config = {"mcpServers": {"asking": entry("stdio", None, "2025-11-25")}}
    config_file = tmp_path / "yrden.json"
    config_file.write_text(json.dumps(config))
    params = StdioServerParameters(command=str(yrden), args=["stdio", "--config", str(config_file)], env=clean_env())
    received: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append(params)

    with (tmp_path / "stderr.log").open("w") as stderr, anyio.fail_after(60):
        client = Client(
            stdio_client(params, errlog=stderr), mode="auto", cache=None, logging_callback=on_log, log_level="info"
        )
        async with client:
            assert client.protocol_version == MODERN_VERSION
            result = await client.call_tool("asking__log_lines", {})
            # The lines come on the call's own stream (the pipe) before its answer.
            assert text_of(result) == "logged"
    assert [(m.level, m.data, m.logger) for m in received] == [
        ("info", "info line", "asking/lines"),
        ("warning", "warning line", "asking/lines"),
    ]


async def test_a_message_two_asking_requests_could_own_is_dropped_and_counted(gateway, http_asking):
    """Two 2026-07-28 calls that asked for logs are in flight on a handshake-era stdio server when it logs:
    the pipe does not say whose the lines are, so neither gets them, and `/metrics` counts each drop."""
    gw = gateway({"mcpServers": {"asking": entry("stdio", None, "2025-11-25")}})
    holder_received: list[types.LoggingMessageNotificationParams] = []
    asker_received: list[types.LoggingMessageNotificationParams] = []

    async def on_holder_log(params: types.LoggingMessageNotificationParams) -> None:
        holder_received.append(params)

    async def on_asker_log(params: types.LoggingMessageNotificationParams) -> None:
        asker_received.append(params)

    def hangs_started(text: str) -> int:
        words = text.split()
        return int(words[words.index("started") + 1])

    async with (
        mcp_session(gw.url, mode="legacy", label="observer") as observer,
        mcp_session(gw.url, mode="auto", logging_callback=on_holder_log, log_level="debug", label="holder") as holder,
        mcp_session(gw.url, mode="auto", logging_callback=on_asker_log, log_level="debug", label="asker") as asker,
    ):
        await observer.wait_for_tools({"asking__log_lines", "asking__hang"})
        before = hangs_started(text_of(await observer.client.call_tool("asking__hangs", {})))
        scope = anyio.CancelScope()

        async def hold() -> None:
            with scope:
                await holder.client.call_tool("asking__hang", {"seconds": 30})

        async with anyio.create_task_group() as tg:
            tg.start_soon(hold)

            async def holding() -> bool:
                return hangs_started(text_of(await observer.client.call_tool("asking__hangs", {}))) > before

            await await_until(holding, 15, interval=0.1, what="the holder's call running upstream")
            with anyio.fail_after(20):
                result = await asker.client.call_tool("asking__log_lines", {})
            assert text_of(result) == "logged"
            scope.cancel()
        async with httpx2.AsyncClient(timeout=10) as http:
            metrics = (await http.get(f"{gw.base}/metrics")).text
    # The lines would have come on the asker's stream before its answer.
    assert asker_received == [] and holder_received == []
    assert sample(metrics, "yrden_upstream_notifications_shed_total", server="asking", reason="unattributed_log") == 3
