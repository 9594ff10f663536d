"""Upstreams' log messages reach the clients that asked for them, at their level, naming the server.

A handshake-era client asks with ``logging/setLevel`` for its session; a 2026-07-28 client with
``_meta.logLevel`` on a request. The upstream is ``servers/asking_server.py`` (its ``log_lines`` tool logs a
debug, an info and a warning line) over stdio and Streamable HTTP, in either era.
"""

from __future__ import annotations

import anyio
import mcp_types as types
import pytest

from harness import ASKING_SERVER, PYTHON, mcp_session, text_of


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
        with anyio.move_on_after(3):
            while len(received) < 2:
                await anyio.sleep(0.05)
        await anyio.sleep(0.3)  # nothing more (the debug line) may follow
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


# Over stdio a message does not say its request. A 2026-07-28 server logs only for requests that asked, so it
# is the one request in flight that did; a handshake-era server's messages belong to its session with the
# gateway and are not attributed to a 2026-07-28 request (the era table: unattributable logs are dropped).
@pytest.mark.parametrize(
    ("transport", "protocol"), [("http", "2025-11-25"), ("http", "2026-07-28"), ("stdio", "2026-07-28")]
)
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
