"""A client of the admin event stream that loses its connection resumes with `Last-Event-ID`.

A dashboard that reconnects after a dropped connection must not miss what happened meanwhile, nor show it twice:
the gateway replays the events after the id the client last saw (while it still holds them), then the live
ones. When it no longer holds them, or never sent that id (it restarted), it says so first, so the client reads
the state again instead of trusting a stale picture.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2

from harness import admin_events


def demo_entry(yrden: Path) -> dict[str, Any]:
    return {"command": str(yrden), "args": ["demo-server"]}


def state_is(server_id: str, state: str) -> Callable[[str, dict[str, Any]], bool]:
    return lambda name, data: name == "server.state" and data["server"]["id"] == server_id and (
        data["server"]["state"] == state
    )


def connected(server_id: str) -> Callable[[str, dict[str, Any]], bool]:
    return state_is(server_id, "connected")


async def test_a_client_that_reconnects_gets_exactly_the_events_it_missed_then_the_live_ones(gateway, yrden) -> None:
    gw = gateway({"mcpServers": {"a": demo_entry(yrden), "b": demo_entry(yrden)}})
    api = f"{gw.base}/api/v1"
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0)) as http, admin_events(gw) as witness:
        # `witness` never leaves: what a client that stayed saw, to compare with.
        for server_id in ("a", "b"):
            await witness.reach_state(server_id, "connected", 30)

        async with admin_events(gw) as leaving:
            assert (await http.post(f"{api}/servers/a/disconnect")).status_code == 202
            await leaving.wait_for_state("a", "disconnected", 10)
        last_seen = [event_id for event_id in leaving.ids if event_id is not None][-1]

        # While the client is away, b is disconnected.
        assert (await http.post(f"{api}/servers/b/disconnect")).status_code == 202
        start = witness.ids.index(last_seen) + 1
        end = await witness.wait_for(state_is("b", "disconnected"), 10, after=start, what="b disconnected")
        missed = list(zip(witness.ids[start : end + 1], witness.events[start : end + 1]))
        assert missed, "something happened while the client was away"

        async with admin_events(gw, last_event_id=last_seen) as resumed:
            caught_up = await resumed.wait_for(state_is("b", "disconnected"), 10, what="b disconnected")
            replayed = list(zip(resumed.ids[: caught_up + 1], resumed.events[: caught_up + 1]))
            assert replayed == missed, "exactly the missed events, in order"

            # Then the live ones, numbered on from the missed ones.
            after = resumed.mark()
            assert (await http.post(f"{api}/servers/a/connect")).status_code == 202
            resumed_end = await resumed.wait_for(connected("a"), 30, after=after, what="a connected")
            witness_end = await witness.wait_for(connected("a"), 30, after=end + 1, what="a connected")
            assert resumed.events[: resumed_end + 1] == witness.events[start : witness_end + 1]
            assert resumed.ids[: resumed_end + 1] == witness.ids[start : witness_end + 1]
            seen = resumed.ids[: resumed_end + 1]
            assert seen == list(range(last_seen + 1, last_seen + 1 + len(seen))), "no event twice, none left out"


async def test_a_client_whose_last_id_the_gateway_does_not_hold_is_told_to_read_the_state_again(
    gateway, yrden
) -> None:
    config = {"mcpServers": {"a": demo_entry(yrden)}}
    before = gateway(config)
    async with admin_events(before) as events:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0)) as http:
            assert (await http.post(f"{before.base}/api/v1/servers/a/disconnect")).status_code == 202
        await events.wait_for_state("a", "disconnected", 10)
        last_seen = [event_id for event_id in events.ids if event_id is not None][-1]
    # The gateway restarted (a new process), and has since announced more events than the old one had: the
    # client's last id is none of them, and must not be taken for one.
    gw = gateway(config)
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0)) as http:
        async with admin_events(gw) as events:
            for action, state in (("disconnect", "disconnected"), ("connect", "connected")):
                assert (await http.post(f"{gw.base}/api/v1/servers/a/{action}")).status_code == 202
                await events.wait_for_state("a", state, 30)
        async with admin_events(gw, last_event_id=last_seen) as resumed:
            index = await resumed.wait_for(lambda name, data: True, 10, what="the first event")
            name, data = resumed.events[index]
            assert (name, data["after"], resumed.ids[index]) == ("events.missed", last_seen, None)
            assert "GET /api/v1/servers" in data["detail"]
            assert (await http.post(f"{gw.base}/api/v1/servers/a/disconnect")).status_code == 202
            await resumed.wait_for_state("a", "disconnected", 10)

        garbled = await http.get(f"{gw.base}/api/v1/events", headers={"Last-Event-ID": "forty-two"})
        assert garbled.status_code == 400
        assert "Last-Event-ID" in garbled.json()["detail"]
