"""Resource subscriptions: a client follows a resource, the upstream that owns it is subscribed once, and only
followers hear that it changed, whether they follow with ``resources/subscribe`` (a handshake-era session)
or in a ``subscriptions/listen`` filter (2026-07-28).

The upstream is ``servers/asking_server.py``: in the handshake era it serves ``resources/subscribe`` and its
``touch(uri)`` tool says the resource changed to whoever subscribed, returning what is subscribed; in
2026-07-28 the gateway follows the resources in its own listen stream's filter.
"""

from __future__ import annotations

import anyio
import pytest

from harness import ASKING_SERVER, PYTHON, await_until, mcp_session, text_of

PAD = "note://pad"
LINE = "note://pad/line"


def config(protocol: str = "2025-11-25") -> dict:
    return {"mcpServers": {"asking": {"command": PYTHON, "args": [str(ASKING_SERVER)], "protocol": protocol}}}


def updates(session) -> list[str]:
    return [str(n.params.uri) for n in session.notifications if n.method == "notifications/resources/updated"]


async def touch(session, uri: str = PAD) -> str:
    with anyio.fail_after(15):
        return text_of(await session.client.call_tool("asking__touch", {"uri": uri}))


async def test_only_followers_hear_of_a_change_and_the_upstream_is_subscribed_once(gateway):
    gw = gateway(config())
    async with (
        mcp_session(gw.url, mode="legacy", subscribe=True, label="a") as a,
        mcp_session(gw.url, mode="legacy", subscribe=True, label="b") as b,
        mcp_session(gw.url, mode="legacy", subscribe=True, label="bystander") as bystander,
    ):
        await a.wait_for_tools({"asking__touch"})
        caps = a.client.initialize_result.capabilities if hasattr(a.client, "initialize_result") else None
        if caps is not None and caps.resources is not None:
            assert caps.resources.subscribe is True
        # The bystander follows only the line (a part of the pad: followers of the pad hear of it too). The line's
        # updates, which the upstream sends after the pad's and which take the same way, prove that a pad update
        # that was not for a session has not come to it.
        with anyio.fail_after(15):
            await a.client.subscribe_resource(PAD)
            await b.client.subscribe_resource(PAD)
            await bystander.client.subscribe_resource(LINE)
        assert await touch(bystander) == f"{PAD} {LINE}", "the upstream holds one subscription of each"
        for s in (a, b):
            await s.wait_for_notification("notifications/resources/updated", timeout=10)
        heard = {s: len(s.notifications) for s in (a, b, bystander)}
        assert await touch(bystander, LINE) == f"{PAD} {LINE}"
        for s in (a, b, bystander):
            await s.wait_for_notification(
                "notifications/resources/updated", timeout=10, after=heard[s], predicate=lambda n: str(n.params.uri) == LINE
            )
        assert updates(bystander) == [LINE]
        assert updates(a) == [PAD, LINE] and updates(b) == [PAD, LINE]

        with anyio.fail_after(15):
            await a.client.unsubscribe_resource(PAD)
        heard[b] = len(b.notifications)
        assert await touch(bystander) == f"{PAD} {LINE}", "b still follows it"
        await b.wait_for_notification("notifications/resources/updated", timeout=10, after=heard[b])
        # a follows the line now: its update proves the pad's, sent before it, did not come to a.
        with anyio.fail_after(15):
            await a.client.subscribe_resource(LINE)
        heard[a] = len(a.notifications)
        assert await touch(bystander, LINE) == f"{PAD} {LINE}"
        await a.wait_for_notification("notifications/resources/updated", timeout=10, after=heard[a])
        assert updates(a) == [PAD, LINE, LINE]
        with anyio.fail_after(15):
            await b.client.unsubscribe_resource(PAD)
        # The upstream is no longer subscribed to the pad, so it says nothing of it to anyone.
        assert await touch(bystander) == LINE, "the last follower gone, the upstream is unsubscribed"


async def test_a_session_that_ends_releases_what_it_followed(gateway):
    gw = gateway(config())
    async with mcp_session(gw.url, mode="legacy", label="watcher") as watcher:
        await watcher.wait_for_tools({"asking__touch"})
        async with mcp_session(gw.url, mode="legacy", label="leaver") as leaver:
            with anyio.fail_after(15):
                await leaver.client.subscribe_resource(PAD)
            assert await touch(watcher) == PAD
        # The leaver's session ended (DELETE); the next use of the table releases its subscription.
        with anyio.fail_after(15):
            await watcher.client.subscribe_resource("note://pad/line")
        assert await touch(watcher, "note://pad/line") == "note://pad/line"


async def test_an_unknown_resource_cannot_be_followed(gateway):
    gw = gateway(config())
    async with mcp_session(gw.url, mode="legacy") as s:
        await s.wait_for_tools({"asking__touch"})
        try:
            with anyio.fail_after(15):
                await s.client.subscribe_resource("note://nowhere")
        except Exception as error:  # the SDK raises MCPError
            assert "note://nowhere" in str(error)
        else:
            raise AssertionError("following an unknown resource was accepted")


async def test_a_listen_stream_follows_the_resources_in_its_filter(gateway):
    gw = gateway(config())
    async with (
        mcp_session(gw.url, mode="auto", label="modern") as modern,
        mcp_session(gw.url, mode="legacy", label="toucher") as toucher,
    ):
        assert modern.is_modern
        await toucher.wait_for_tools({"asking__touch"})
        events: list = []
        async with modern.client.listen(resource_subscriptions=[PAD, "note://nowhere"]) as sub:
            assert list(sub.honored.resource_subscriptions or []) == [PAD]
            assert await touch(toucher) == PAD
            with anyio.fail_after(10):
                async for event in sub:
                    events.append(event)
                    break
        assert [str(e.uri) for e in events] == [PAD]
        # The stream closed: the gateway sees it at its next write (a keep-alive at the latest), ends the
        # stream's session, and the next use of the table unsubscribes the upstream.
        with anyio.fail_after(15):
            await toucher.client.subscribe_resource("note://pad/line")

        async def released() -> bool | None:
            with anyio.fail_after(15):
                await toucher.client.subscribe_resource("note://pad/line")
            return True if await touch(toucher, "note://pad/line") == "note://pad/line" else None

        await await_until(released, 30, interval=0.5, what="the closed stream's subscription released")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_resources_of_a_modern_upstream_are_followed_through_its_listen_stream(gateway, mode):
    gw = gateway(config("2026-07-28"))
    async with (
        mcp_session(gw.url, mode="legacy", subscribe=True, label="follower") as follower,
        mcp_session(gw.url, mode=mode, label="toucher") as toucher,
    ):
        await follower.wait_for_tools({"asking__touch"})
        with anyio.fail_after(15):
            await follower.client.subscribe_resource(PAD)

        async def updated() -> bool | None:
            # The upstream's new listen stream may still be opening: touch until the change comes through.
            assert await touch(toucher) == "notified"
            await anyio.sleep(0.2)
            return True if updates(follower) else None

        await await_until(updated, 15, interval=0.3, what="the resource update through the listen stream")
        assert set(updates(follower)) == {PAD}
        with anyio.fail_after(15):
            await follower.client.unsubscribe_resource(PAD)
        seen = len(updates(follower))
        assert await touch(toucher) == "notified"
        # The follower follows the line now: once a line update came (after the upstream's listen stream was
        # reopened for it), a pad update sent before it would have come too.
        with anyio.fail_after(15):
            await follower.client.subscribe_resource(LINE)

        async def line_updated() -> bool | None:
            assert await touch(toucher, LINE) == "notified"
            await anyio.sleep(0.2)
            return True if LINE in updates(follower)[seen:] else None

        await await_until(line_updated, 15, interval=0.3, what="the line's update through the listen stream")
        assert set(updates(follower)[seen:]) == {LINE}, "an update of the pad arrived after the client unsubscribed"
