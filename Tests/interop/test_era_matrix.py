"""The protocol-era matrix, cell by cell: every feature the gateway relays, for a client of each era against
an upstream of each era, over stdio and over Streamable HTTP.

Clients: the official Python SDK 2.x in ``legacy`` (the handshake), ``auto`` (which picks 2026-07-28 against
the gateway) and pinned ``2026-07-28`` mode, and the SDK 1.x (a handshake-era host, from ``.venv-1x``).
Upstreams: ``servers/asking_server.py``, one per module-wide gateway, as

- ``stdio-handshake`` / ``http-handshake``: the dual-era server pinned with ``"protocol": "2025-11-25"``;
- ``stdio-modern`` / ``http-modern``: ``--modern-only``, a server of 2026-07-28 that refuses the handshake,
  which the gateway finds by its probe.

So each test runs in all four cells of the era table, twice (stdio and HTTP), and checks what a user would:
the text that comes back, the notification that arrives, what the upstream says it saw. A 2026-07-28
client never gets or sends an ``Mcp-Session-Id``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest

import harness
from harness import (
    ASKING_SERVER,
    INTEROP_DIR,
    LEGACY_VERSION,
    MODERN_VERSION,
    PYTHON,
    REPO_ROOT,
    Gateway,
    McpSession,
    asking_over_http,
    await_until,
    clean_env,
    mcp_session,
    start_gateway,
    text_of,
    wait_until,
)
from test_client_requests import answer_model, answer_name, answer_roots

UPSTREAMS = ["stdio-handshake", "stdio-modern", "http-handshake", "http-modern"]
CLIENT_MODES = ["legacy", "auto", MODERN_VERSION]
TOOLS = {"asking__ask_name", "asking__count", "asking__hang", "asking__touch"}
PAD = "note://pad"
LINE = "note://pad/line"
VENV_1X = REPO_ROOT / ".venv-1x" / "bin" / "python"
CLIENT_1X = INTEROP_DIR / "clients" / "client_1x_cells.py"

# The SDK marks logging, sampling, roots and resources/subscribe deprecated in 2026-07-28; they are what is tested.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@dataclass
class Upstream:
    kind: str
    gw: Gateway

    @property
    def transport(self) -> str:
        return self.kind.split("-")[0]

    @property
    def modern(self) -> bool:
        return self.kind.endswith("-modern")


@pytest.fixture(scope="module", params=UPSTREAMS)
def upstream(
    request: pytest.FixtureRequest, yrden: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Upstream]:
    """A gateway in front of one asking server of the given transport and era, shared by the module's tests."""
    kind: str = request.param
    transport, era = kind.split("-")
    flags = ["--modern-only"] if era == "modern" else []
    tmp = tmp_path_factory.mktemp(kind)
    with ExitStack() as stack:
        if transport == "http":
            entry: dict = {"url": stack.enter_context(asking_over_http(tmp / "asking.log", *flags))}
        else:
            entry = {"command": PYTHON, "args": [str(ASKING_SERVER), *flags]}
        if era == "handshake":
            entry["protocol"] = LEGACY_VERSION
        gw = start_gateway(yrden, {"mcpServers": {"asking": entry}}, tmp / "gateway")

        def stop() -> None:
            gw.stop()
            harness.stop_quietly(gw.children_at_stop)

        stack.callback(stop)

        def connected() -> dict | None:
            status = httpx2.get(f"{gw.base}/api/v1/servers/asking", timeout=10).json()
            return status if status["state"] == "connected" else None

        status = wait_until(connected, 30, "the asking server connected")
        assert status["era"] == ("modern" if era == "modern" else "handshake"), status
        yield Upstream(kind, gw)


@pytest.fixture(params=CLIENT_MODES, ids=["legacy", "auto", "pinned-modern"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


@asynccontextmanager
async def client(up: Upstream, mode: str, **options) -> AsyncIterator[McpSession]:
    """An SDK session in ``mode`` once the upstream's tools are listed; a 2026-07-28 one must have gone
    without a session id from start to end."""
    async with mcp_session(up.gw.url, mode=mode, label=f"{mode} -> {up.kind}", **options) as s:
        assert s.protocol_version == (LEGACY_VERSION if mode == "legacy" else MODERN_VERSION)
        await s.wait_for_tools(TOOLS)
        modern = s.is_modern
        yield s
    if modern:
        assert not s.session_ids_minted, f"a 2026-07-28 client was given a session: {s.session_ids_minted}"
        assert not s.session_ids_sent, f"a 2026-07-28 client sent a session id: {s.session_ids_sent}"
    else:
        assert len(s.session_ids_minted) == 1, f"a handshake has one session: {s.session_ids_minted}"
        assert s.session_ids_sent == s.session_ids_minted


async def call(session: McpSession, name: str, arguments: dict | None = None, **kwargs) -> str:
    with anyio.fail_after(20):
        result = await session.client.call_tool(name, arguments or {}, **kwargs)
    assert not result.is_error, text_of(result)
    return text_of(result)


# ---------------------------------------------------------------------------
# Tools, resources, prompts


async def test_tools_resources_and_prompts(upstream, mode):
    async with client(upstream, mode) as s:
        assert (await call(s, "asking__where", {"region": "eu", "count": 3})).startswith("eu 3 |")
        with anyio.fail_after(15):
            resources = (await s.client.list_resources()).resources
            pad = await s.client.read_resource(PAD)
            prompts = (await s.client.list_prompts()).prompts
            greeting = await s.client.get_prompt("asking__greeting", {"name": "Ada"})
        assert PAD in {str(r.uri) for r in resources}
        assert text_of(pad) == "pad"
        assert "asking__greeting" in {p.name for p in prompts}
        assert text_of(greeting) == "Say hello to Ada."


# ---------------------------------------------------------------------------
# Requests from the upstream: elicitation (form and URL), sampling, roots


async def test_form_elicitation_sampling_and_roots(upstream, mode):
    callbacks = {
        "elicitation_callback": answer_name,
        "sampling_callback": answer_model,
        "list_roots_callback": answer_roots,
    }
    async with client(upstream, mode, **callbacks) as s:
        assert await call(s, "asking__ask_name") == "Hello, Ada!"
        assert await call(s, "asking__ask_model", {"prompt": "six times seven"}) == (
            "the model said: six times seven is 42"
        )
        assert await call(s, "asking__list_roots") == "file:///work/project"


async def test_url_elicitation(upstream, mode):
    """A handshake-era client gets an `elicitationId` (the upstream's, or one the gateway minted for a
    2026-07-28 upstream, which has none) and, from a handshake-era upstream, its completion notice; a
    2026-07-28 client gets the request without an id (that era has none)."""
    asked: list[types.ElicitRequestParams] = []

    async def visit(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept")

    async with client(upstream, mode, subscribe=True, elicitation_callback=visit) as s:
        assert await call(s, "asking__ask_url") == "url accept"
        assert [(p.mode, str(p.url)) for p in asked] == [("url", "https://example.com/auth")]
        elicitation_id = getattr(asked[0], "elicitation_id", None)
        if not s.is_modern:
            assert elicitation_id, "a handshake-era client's URL elicitation has no elicitationId"
            if not upstream.modern:
                assert elicitation_id == "auth-1"
                done = await s.wait_for_notification("notifications/elicitation/complete", timeout=10)
                assert done.params.elicitation_id == "auth-1"
        else:
            assert elicitation_id in (None, ""), elicitation_id


# ---------------------------------------------------------------------------
# Logging and progress


async def test_logging(upstream, mode):
    """A handshake-era session gets what its `logging/setLevel` asked for, a 2026-07-28 request what its
    `logLevel` asked for, each naming the server. A handshake-era stdio server's messages say no request:
    they are the one call's in flight that asked for logs."""
    received: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append(params)

    options = {"logging_callback": on_log} if mode == "legacy" else {"logging_callback": on_log, "log_level": "warning"}
    async with client(upstream, mode, subscribe=True, **options) as s:
        if mode == "legacy":
            with anyio.fail_after(15):
                await s.client.set_logging_level("info")
        assert await call(s, "asking__log_lines") == "logged"
        expected = [("warning", "warning line")]
        if mode == "legacy":
            expected = [("info", "info line"), ("warning", "warning line")]
        # The server logs debug, info, then warning, all the same way to the client: once the warning line is
        # here, a debug line that was let through would be here too.
        with anyio.move_on_after(10):  # if it never comes, the assertion below shows what did
            while not any(m.data == "warning line" for m in received):
                await anyio.sleep(0.05)
    assert [(m.level, m.data) for m in received] == expected
    assert {m.logger for m in received} <= {"asking/lines"}


async def test_progress(upstream, mode):
    updates: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total))

    async with client(upstream, mode) as s:
        assert await call(s, "asking__count", {"steps": 3}, progress_callback=on_progress) == "counted to 3"
    assert updates == [(1, 3), (2, 3), (3, 3)]


# ---------------------------------------------------------------------------
# List changes and resource subscriptions


async def test_a_tool_list_change_reaches_the_client(upstream, mode):
    """A handshake-era client hears it on its GET stream, a 2026-07-28 client on its listen stream."""
    name = f"fresh_{mode.replace('-', '_')}"
    async with client(upstream, mode, subscribe=True) as s:
        seen = len(s.notifications)
        assert await call(s, "asking__add_tool", {"name": name}) == f"added {name}"
        await s.wait_for_notification("notifications/tools/list_changed", timeout=10, after=seen)
        await s.wait_for_tools({f"asking__{name}"}, timeout=10)
        assert await call(s, f"asking__{name}") == f"{name} was added at runtime"


async def test_a_followed_resource_change_reaches_the_client(upstream, mode):
    """A handshake-era client follows with `resources/subscribe` (updates on its GET stream), a 2026-07-28
    client in its listen stream's `resourceSubscriptions` (updates stamped on that stream)."""
    async with client(upstream, mode, subscribe=(mode == "legacy")) as s:
        if not s.is_modern:
            with anyio.fail_after(15):
                await s.client.subscribe_resource(PAD)

            def updates() -> list[str]:
                return [str(n.params.uri) for n in s.received("notifications/resources/updated")]

            async def updated() -> bool:
                # A 2026-07-28 upstream's new listen stream may still be opening: touch until it comes through.
                await call(s, "asking__touch", {"uri": PAD})
                await anyio.sleep(0.2)
                return bool(updates())

            await await_until(updated, 15, interval=0.3, what="the resource update")
            assert set(updates()) == {PAD}
            with anyio.fail_after(15):
                await s.client.unsubscribe_resource(PAD)
            seen = len(updates())
            await call(s, "asking__touch", {"uri": PAD})
            # The client follows the line now: once a line update came (the upstream's listen stream, if any,
            # reopened for it), an update of the pad sent before it would have come too.
            with anyio.fail_after(15):
                await s.client.subscribe_resource(LINE)

            async def line_updated() -> bool:
                await call(s, "asking__touch", {"uri": LINE})
                await anyio.sleep(0.2)
                return LINE in updates()[seen:]

            await await_until(line_updated, 15, interval=0.3, what="the line's update")
            assert set(updates()[seen:]) == {LINE}, "an update of the pad arrived after the client unsubscribed"
            return

        events: list = []
        async with s.client.listen(resource_subscriptions=[PAD]) as sub:
            assert [str(u) for u in sub.honored.resource_subscriptions or []] == [PAD]

            async def read() -> None:
                async for event in sub:
                    events.append(event)
                    return

            async with anyio.create_task_group() as tg:
                tg.start_soon(read)

                async def updated() -> bool:
                    await call(s, "asking__touch", {"uri": PAD})
                    await anyio.sleep(0.2)
                    return bool(events)

                await await_until(updated, 15, interval=0.3, what="the resource update on the listen stream")
        assert [str(e.uri) for e in events] == [PAD]


# ---------------------------------------------------------------------------
# The SDK 1.x host


@pytest.mark.skipif(not VENV_1X.exists(), reason="make test installs .venv-1x (requirements-1x.txt)")
async def test_a_1x_host_uses_every_feature(upstream):
    run = await anyio.to_thread.run_sync(
        lambda: subprocess.run(
            [str(VENV_1X), str(CLIENT_1X), upstream.gw.url],
            capture_output=True,
            text=True,
            timeout=120,
            env=clean_env(),
        )
    )
    assert run.returncode == 0, run.stderr[-6000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["protocolVersion"] == LEGACY_VERSION and seen["session"]
    assert TOOLS <= set(seen["tools"])
    assert seen["where"].startswith("eu 3 |")
    assert seen["pad"] == "pad"
    assert seen["prompt"] == "Say hello to Ada."
    assert seen["ask_name"] == "Hello, Ada!"
    assert seen["ask_model"] == "the model said: six times seven is 42"
    assert seen["list_roots"] == "file:///work/one-x"
    assert seen["ask_url"] == "url accept"
    assert [u["url"] for u in seen["asked_urls"]] == ["https://example.com/auth"]
    assert all(u["elicitationId"] for u in seen["asked_urls"]), seen["asked_urls"]
    if not upstream.modern:
        completes = [h for h in seen["heard"] if h["method"] == "notifications/elicitation/complete"]
        assert completes and completes[0]["elicitationId"] == "auth-1", seen["heard"]
    assert seen["count"] == "counted to 3" and seen["progress"] == [1, 2, 3]
    assert [(m["level"], m["data"], m["logger"]) for m in seen["logs"]] == [
        ("info", "info line", "asking/lines"),
        ("warning", "warning line", "asking/lines"),
    ]
    assert "notifications/tools/list_changed" in {h["method"] for h in seen["heard"]}
    assert seen["fresh"] == "one_x_fresh was added at runtime"
    assert {"method": "notifications/resources/updated", "uri": PAD} in seen["heard"]
    before, after = seen["hangs_before"], seen["hangs_after"]
    assert after == {**before, "started": before["started"] + 1, "cancelled": before["cancelled"] + 1}, (before, after)


# ---------------------------------------------------------------------------
# Cancellation (last: a call the gateway fails to cancel keeps running upstream for a while)


def hang_counts(text: str) -> dict[str, int]:
    words = text.split()
    return {words[i]: int(words[i + 1]) for i in range(0, len(words), 2)}


HANG_SECONDS = 20  # long past the test's wait, short enough that a call the gateway failed to cancel ends soon


@pytest.mark.parametrize("ticking", [False, True], ids=["silent", "ticking"])
async def test_cancellation_reaches_the_upstream(upstream, mode, ticking):
    """The SDK cancels as its era says (`notifications/cancelled` in the handshake era, closing the call's
    stream in 2026-07-28); the gateway passes it on in the upstream's era (`notifications/cancelled`, or
    closing its POST to a 2026-07-28 HTTP upstream), and the upstream's call stops. ``silent``: the call sends
    nothing while it runs, so the gateway must notice the closed stream without writing to it; ``ticking``: it
    reports progress, so the stream is being written to when the client leaves."""
    arguments = {"seconds": HANG_SECONDS, "interval": 0.2} if ticking else {"seconds": HANG_SECONDS}

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        pass

    async with client(upstream, mode) as s:
        before = hang_counts(await call(s, "asking__hangs"))
        scope = anyio.CancelScope()

        async def hang() -> None:
            with scope:
                callback = on_progress if ticking else None
                await s.client.call_tool("asking__hang", arguments, progress_callback=callback)

        async with anyio.create_task_group() as tg:
            tg.start_soon(hang)

            async def started() -> bool:
                return hang_counts(await call(s, "asking__hangs"))["started"] > before["started"]

            await await_until(started, 15, interval=0.1, what="the hang call running upstream")
            scope.cancel()

        async def cancelled() -> dict[str, int] | None:
            counts = hang_counts(await call(s, "asking__hangs"))
            return counts if counts["cancelled"] > before["cancelled"] else None

        try:
            after = await await_until(cancelled, 6, interval=0.2, what="the upstream's call cancelled")
        except TimeoutError:
            raise AssertionError(
                f"the upstream never saw the cancellation: before {before}, now {await call(s, 'asking__hangs')}"
            ) from None
        assert after["cancelled"] == before["cancelled"] + 1, (before, after)
        # The gateway still serves this client: only the call was given up.
        assert await call(s, "asking__count", {"steps": 1}) == "counted to 1"
