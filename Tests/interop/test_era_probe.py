"""The `server/discover` probe is sent to a server once in the gateway's life, not at every connection.

An SDK 1.x stdio server answers the probe with -32602 and writes a 31-line validation error to its stderr
for it; a gateway that probed at every reconnect filled the server's log with one such block per restart or
crash. The era found is kept for the server (README: a server seen in the handshake era is probed again only
when it refuses `initialize` with -32022).
"""

from __future__ import annotations

import os
import signal

import httpx2
import pytest

from harness import INTEROP_DIR, REPO_ROOT, admin_events, await_until, descendants_of

VENV_1X = REPO_ROOT / ".venv-1x" / "bin" / "python"
ONE_X_SERVER = INTEROP_DIR / "servers" / "one_x_server.py"
VALIDATION_ERROR = "Failed to validate request"

pytestmark = pytest.mark.skipif(not VENV_1X.exists(), reason="make test installs .venv-1x (requirements-1x.txt)")


async def test_a_1x_server_reconnected_several_times_is_probed_once(gateway):
    gw = gateway({"mcpServers": {"onex": {"command": str(VENV_1X), "args": [str(ONE_X_SERVER)]}}})
    async with admin_events(gw) as events, httpx2.AsyncClient(timeout=30) as http:
        first = await events.reach_state("onex", "connected", 30)
        assert first["era"] == "handshake", first
        for _ in range(2):  # restarted by the operator
            mark = events.mark()
            response = await http.post(f"{gw.base}/api/v1/servers/onex/restart")
            assert response.status_code in (200, 202, 204), response.text
            await events.wait_for_state("onex", "connected", 30, after=mark)
        for _ in range(2):  # crashed, and reconnected by the gateway
            (server,) = [p.pid for p in descendants_of(gw.pid) if str(ONE_X_SERVER) in p.command]
            mark = events.mark()
            os.kill(server, signal.SIGKILL)
            await events.wait_for_state("onex", "failed", 30, after=mark)
            await events.wait_for_state("onex", "connected", 30, after=mark)
        logs = (await http.get(f"{gw.base}/api/v1/logs", params={"server": "onex", "limit": 1000})).json()
    assert probes(logs) == 1, f"{probes(logs)} validation-error blocks for 5 connections"


def probes(logs: dict) -> int:
    """How many `server/discover` probes the 1.x server got: one validation-error block in its stderr each."""
    return sum(VALIDATION_ERROR in e["message"] for e in logs["entries"] if e["event"] == "stderr")


async def test_a_1x_server_that_fails_each_attempt_after_the_handshake_is_probed_once(gateway):
    """Each attempt agrees on the handshake era, then fails (the server exits when asked for its tools): the
    era found is kept from the first attempt on, not only once a connection succeeds."""
    attempts = 3
    entry = {
        "command": str(VENV_1X),
        "args": [str(ONE_X_SERVER), "--exit-on-list"],
        "reconnect": {"initialDelay": 0.05, "maxDelay": 0.1, "maxAttempts": attempts - 1},
    }
    gw = gateway({"mcpServers": {"onex": entry}})
    async with httpx2.AsyncClient(timeout=30) as http:

        async def given_up() -> dict | None:
            view = (await http.get(f"{gw.base}/api/v1/servers/onex")).json()
            return view if view["state"] == "failed" and view.get("reconnect") is None else None

        view = await await_until(given_up, timeout=60, interval=0.2, what="the attempts to end")
        logs = (await http.get(f"{gw.base}/api/v1/logs", params={"server": "onex", "limit": 1000})).json()
    assert "exited with status 3" in view["lastError"]["message"], view
    assert probes(logs) == 1, f"{probes(logs)} validation-error blocks for {attempts} attempts"
