"""What an upstream asks the client during a call (elicitation, sampling, roots) reaches the client whose call
it is, and its answers come back, over Streamable HTTP and ``yrden stdio``, across the eras:

- handshake client, handshake upstream: the upstream's requests are relayed with the gateway's ids;
- handshake client, 2026-07-28 upstream: its ``input_required`` becomes real requests to the client, and
  the answers go back in the retry with ``requestState``;
- 2026-07-28 client, handshake upstream: the upstream's requests are parked behind ``input_required`` with a
  sealed ``requestState``, and the client's retry answers them in the still-running call;
- 2026-07-28 client, 2026-07-28 upstream: ``input_required`` passes through, the client retries, and the
  retry is routed by the tool's public name; the upstream sees the client's own capabilities.

The upstream is
``servers/asking_server.py`` (the official Python SDK's resolvers, which follow the era); the clients are
the SDK's ``Client`` with its callbacks.
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
from mcp.shared.exceptions import MCPError

from harness import ASKING_SERVER, PYTHON, await_until, clean_env, mcp_session, text_of, write_config

TOOLS = {"asking__ask_name", "asking__ask_model", "asking__list_roots"}


# (client mode, upstream protocol): the four cells of the translation table.
# "2026-07-28" as the mode pins the client to that era without a probe.
CELLS = [
    ("legacy", "2025-11-25"),
    ("legacy", "2026-07-28"),
    ("auto", "2025-11-25"),
    ("auto", "2026-07-28"),
    ("2026-07-28", "2025-11-25"),
    ("2026-07-28", "2026-07-28"),
]
CELL_IDS = [
    "handshake-handshake",
    "handshake-modern",
    "modern-handshake",
    "modern-modern",
    "pinned-modern-handshake",
    "pinned-modern-modern",
]


def stdio_config(protocol: str = "2025-11-25") -> dict:
    return {"mcpServers": {"asking": {"command": PYTHON, "args": [str(ASKING_SERVER)], "protocol": protocol}}}


async def answer_name(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    assert params.message == "What is your name?"
    return types.ElicitResult(action="accept", content={"name": "Ada"})


async def answer_model(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    asked = params.messages[0].content.text
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=f"{asked} is 42"), model="test-model"
    )


async def answer_roots(context) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work/project", name="project")])


CALLBACKS = {
    "elicitation_callback": answer_name,
    "sampling_callback": answer_model,
    "list_roots_callback": answer_roots,
}


async def call(session, name: str, arguments: dict | None = None) -> types.CallToolResult:
    with anyio.fail_after(20):
        return await session.client.call_tool(name, arguments or {})


@pytest.mark.parametrize(("mode", "protocol"), CELLS, ids=CELL_IDS)
async def test_elicitation_sampling_and_roots_reach_the_calling_client(gateway, mode, protocol):
    gw = gateway(stdio_config(protocol))
    async with mcp_session(gw.url, mode=mode, **CALLBACKS) as s:
        await s.wait_for_tools(TOOLS)
        assert text_of(await call(s, "asking__ask_name")) == "Hello, Ada!"
        assert text_of(await call(s, "asking__ask_model", {"prompt": "six times seven"})) == (
            "the model said: six times seven is 42"
        )
        assert text_of(await call(s, "asking__list_roots")) == "file:///work/project"


@pytest.mark.parametrize(("mode", "protocol"), CELLS, ids=CELL_IDS)
async def test_a_client_that_did_not_declare_sampling_is_never_asked(gateway, mode, protocol):
    gw = gateway(stdio_config(protocol))
    asked: list[str] = []

    async def answer_roots_only(context) -> types.ListRootsResult:
        asked.append("roots")
        return types.ListRootsResult(roots=[])

    async with mcp_session(gw.url, mode=mode, list_roots_callback=answer_roots_only) as s:
        await s.wait_for_tools(TOOLS)
        # The gateway refuses the upstream's request, or (2026-07-28 upstream) never tells it the client can
        # sample, so the server refuses the call itself (-32021).
        with pytest.raises(MCPError, match="(?i)sampling"):
            await call(s, "asking__ask_model", {"prompt": "anything"})
        assert asked == []


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_two_clients_each_answer_their_own_calls_over_http(gateway, http_asking, protocol):
    gw = gateway({"mcpServers": {"asking": {"url": http_asking, "protocol": protocol}}})

    asked: list[str] = []
    both_asked = anyio.Event()

    def named(name: str):
        async def answer(context, params: types.ElicitRequestParams) -> types.ElicitResult:
            # Neither answers until both were asked: both calls are in flight at once, each waiting on its own
            # client.
            asked.append(name)
            if len(asked) == 2:
                both_asked.set()
            with anyio.fail_after(15):
                await both_asked.wait()
            return types.ElicitResult(action="accept", content={"name": name})

        return answer

    async with (
        mcp_session(gw.url, mode="legacy", elicitation_callback=named("Ada"), label="ada") as ada,
        mcp_session(gw.url, mode="legacy", elicitation_callback=named("Bob"), label="bob") as bob,
    ):
        await ada.wait_for_tools(TOOLS)
        results: dict[str, str] = {}

        async def run(label: str, session) -> None:
            results[label] = text_of(await call(session, "asking__ask_name"))

        async with anyio.create_task_group() as tg:
            tg.start_soon(run, "ada", ada)
            tg.start_soon(run, "bob", bob)
        assert results == {"ada": "Hello, Ada!", "bob": "Hello, Bob!"}


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
async def test_yrden_stdio_relays_them_on_the_pipe(yrden: Path, tmp_path: Path, protocol):
    config_file = write_config(tmp_path, stdio_config(protocol))
    params = StdioServerParameters(command=str(yrden), args=["stdio", "--config", str(config_file)], env=clean_env())
    with open(tmp_path / "stderr.log", "w") as stderr:
        async with Client(stdio_client(params, errlog=stderr), mode="legacy", cache=None, **CALLBACKS) as client:
            with anyio.fail_after(30):
                while "asking__ask_name" not in {t.name for t in (await client.list_tools()).tools}:
                    await anyio.sleep(0.2)
                named = await client.call_tool("asking__ask_name", {})
                roots = await client.call_tool("asking__list_roots", {})
    assert text_of(named) == "Hello, Ada!"
    assert text_of(roots) == "file:///work/project"


@pytest.mark.parametrize("answer", ["decline", "cancel"])
@pytest.mark.parametrize(("mode", "protocol"), CELLS, ids=CELL_IDS)
async def test_a_declined_elicitation_reaches_the_server_as_declined(gateway, answer, mode, protocol):
    gw = gateway(stdio_config(protocol))

    async def refuse(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action=answer)

    async with mcp_session(gw.url, mode=mode, elicitation_callback=refuse) as s:
        await s.wait_for_tools(TOOLS)
        assert text_of(await call(s, "asking__ask_name")) == f"no name ({answer})"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_url_elicitation_reaches_the_client_in_its_eras_shape(gateway, mode):
    """A handshake-era upstream's URL elicitation: a handshake client gets it with its `elicitationId` and
    hears `notifications/elicitation/complete`; a 2026-07-28 client gets it in an `input_required` round,
    without an id (that era has no completion notice)."""
    gw = gateway(stdio_config("2025-11-25"))
    asked: list[types.ElicitRequestParams] = []

    async def visit(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept")

    async with mcp_session(gw.url, mode=mode, subscribe=True, elicitation_callback=visit) as s:
        await s.wait_for_tools({"asking__ask_url"})
        assert text_of(await call(s, "asking__ask_url")) == "url accept"
        assert [(p.mode, str(p.url)) for p in asked] == [("url", "https://example.com/auth")]
        if mode == "legacy":
            assert asked[0].elicitation_id == "auth-1"
            await s.wait_for_notification("notifications/elicitation/complete", timeout=10)
        else:
            assert getattr(asked[0], "elicitation_id", None) in (None, "")


async def test_a_clients_roots_change_reaches_a_handshake_upstream(gateway):
    gw = gateway(stdio_config("2025-11-25"))
    async with mcp_session(gw.url, mode="legacy", **CALLBACKS) as s:
        await s.wait_for_tools(TOOLS)
        assert text_of(await call(s, "asking__roots_changes")) == "0"
        await s.client.send_roots_list_changed()

        async def told() -> bool:
            return text_of(await call(s, "asking__roots_changes")) == "1"

        await await_until(told, 10, what="the upstream told of the roots change")
        assert text_of(await call(s, "asking__list_roots")) == "file:///work/project"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_modern_only_http_server_asks_clients_of_both_eras(gateway, http_modern_only, mode):
    gw = gateway({"mcpServers": {"asking": {"url": http_modern_only}}})
    async with mcp_session(gw.url, mode=mode, **CALLBACKS) as s:
        await s.wait_for_tools(TOOLS)
        era = httpx2.get(f"{gw.base}/api/v1/servers/asking", timeout=10).json()["era"]
        assert era == "modern", "a server that refuses the handshake is spoken to in 2026-07-28"
        assert text_of(await call(s, "asking__ask_name")) == "Hello, Ada!"
        assert text_of(await call(s, "asking__ask_model", {"prompt": "six times seven"})) == (
            "the model said: six times seven is 42"
        )
        assert text_of(await call(s, "asking__list_roots")) == "file:///work/project"


async def test_pinning_the_handshake_to_a_modern_only_server_fails_with_the_reason(gateway, http_modern_only):
    gw = gateway({"mcpServers": {"asking": {"url": http_modern_only, "protocol": "2025-11-25"}}})

    def failed() -> dict | None:
        status = httpx2.get(f"{gw.base}/api/v1/servers/asking", timeout=10).json()
        return status if status["state"] == "failed" or status.get("lastError") else None

    status = await await_until(failed, 20, what="the pinned server refused")
    assert "2026-07-28" in json.dumps(status["lastError"]), status


async def test_a_client_that_declared_nothing_is_told_so_and_the_refusal_is_the_gateways(gateway):
    """A client that declared nothing it can be asked has no stream for its calls; what a stdio server asks
    during one is refused for that reason (not as if it came outside any call), and the refusal is logged as
    the gateway's remark about the server, not as a line of the server's stderr."""
    gw = gateway(stdio_config("2025-11-25"))
    async with mcp_session(gw.url, mode="legacy") as s:
        await s.wait_for_tools(TOOLS)
        with pytest.raises(MCPError, match="did not declare the elicitation capability"):
            await call(s, "asking__ask_name")
    async with httpx2.AsyncClient(timeout=10) as http:
        entries = (await http.get(f"{gw.base}/api/v1/logs", params={"server": "asking", "limit": 1000})).json()
    refusals = [e for e in entries["entries"] if "refused elicitation/create" in e["message"]]
    assert [e["event"] for e in refusals] == ["gateway"], entries
