"""The gateway announces changes in the order it applies them.

Servers coming and going while other servers' connections publish their states must never leave the event
stream, `/metrics` and `GET /api/v1/servers` telling three stories: an operator's dashboard follows the events,
an alert follows `yrden_upstream_state`, and both must end where the gateway is.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import httpx2

from harness import AdminEvents, admin_events, await_until

CLIENTS = 8
ROUNDS = 12
STATE_EVENTS = ("server.added", "server.state", "server.removed")


def demo_entry(yrden: Path) -> dict[str, Any]:
    return {"command": str(yrden), "args": ["demo-server"]}


def state_gauges(text: str) -> dict[str, dict[str, float]]:
    """`yrden_upstream_state` as `{server: {state: value}}`."""
    gauges: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        if not line.startswith("yrden_upstream_state{"):
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', line[: line.index("}")]))
        gauges.setdefault(labels["server"], {})[labels["state"]] = float(line.rsplit(" ", 1)[1])
    return gauges


async def connected_now(events: AdminEvents, server_id: str) -> bool:
    return (await events.server(server_id))["state"] == "connected"


def last_state_event(events: list[tuple[str, dict[str, Any]]], server_id: str) -> tuple[str, str | None] | None:
    """The name of the last added/state/removed event of `server_id`, with the state it carried."""
    for name, data in reversed(events):
        if name not in STATE_EVENTS:
            continue
        if name == "server.removed":
            if data["id"] == server_id:
                return (name, None)
        elif data["server"]["id"] == server_id:
            return (name, data["server"]["state"])
    return None


async def test_churning_servers_end_with_events_metrics_and_the_list_agreeing(gateway, yrden) -> None:
    gw = gateway({"mcpServers": {}})
    api = f"{gw.base}/api/v1"
    ids = [f"churn{index}" for index in range(CLIENTS)]
    # Odd clients leave their server in after the last round, even ones take it out.
    staying = {server_id for index, server_id in enumerate(ids) if index % 2 == 1}
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(60.0)) as http, admin_events(gw) as events:

        async def churn(server_id: str) -> None:
            for round_ in range(ROUNDS):
                added = await http.post(f"{api}/servers", json={"id": server_id, "config": demo_entry(yrden)})
                assert added.status_code == 201, added.text
                if round_ == ROUNDS - 1 and server_id in staying:
                    return
                removed = await http.delete(f"{api}/servers/{server_id}")
                assert removed.status_code == 204, removed.text

        async with anyio.create_task_group() as group:
            for server_id in ids:
                group.start_soon(churn, server_id)

        # Each staying server's last add is answered, so the server the API shows is that add's: polled until it
        # is connected, which lasts (a connected event on the stream may be an earlier round's, of a removed one).
        for server_id in sorted(staying):
            await await_until(
                lambda: connected_now(events, server_id), timeout=30, what=f"{server_id}'s last add connected"
            )
        # Every event announced before the sentinel's is on the stream once the sentinel's is.
        sentinel_entry = demo_entry(yrden) | {"disabled": True}
        sentinel = await http.post(f"{api}/servers", json={"id": "sentinel", "config": sentinel_entry})
        assert sentinel.status_code == 201, sentinel.text
        await events.wait_for(
            lambda name, data: name == "server.added" and data["server"]["id"] == "sentinel",
            timeout=10,
            what="server.added sentinel",
        )
        listed = {server["id"]: server["state"] for server in (await http.get(f"{api}/servers")).json()["servers"]}
        gauges = state_gauges((await http.get(f"{gw.base}/metrics")).text)

    assert set(listed) == staying | {"sentinel"}, listed
    for server_id in ids:
        last = last_state_event(events.events, server_id)
        if server_id in staying:
            assert last is not None and last[1] == listed[server_id] == "connected", (server_id, last, listed)
            ones = [state for state, value in gauges.get(server_id, {}).items() if value == 1]
            assert ones == ["connected"], (server_id, gauges.get(server_id))
        else:
            assert last == ("server.removed", None), (server_id, last, events.summary()[-20:])
            assert server_id not in gauges, (server_id, gauges[server_id])
    sequence = [event_id for event_id in events.ids if event_id is not None]
    assert len(sequence) == len(events.events), "every event carries an id"
    assert all(a < b for a, b in zip(sequence, sequence[1:])), "ids increase in the order events arrive"
