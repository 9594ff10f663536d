"""Calls that act with their caller's own credential (``servers/exchange_server.py``): RFC 8693 token exchange,
and the caller's token forwarded only where the config says ``"type": "forward"``, never by default.

The callers are two static client tokens (alice's, bob's); the peer knows which user each is, exchanges either
for a token of its own, and records which kind of ``Authorization`` every request to its ``/mcp`` carried. One
gateway and one peer serve the whole module; each test reads the peer's counters before and after.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from harness import PYTHON, Gateway, clean_env, mcp_session, start_gateway, stop_quietly, text_of

EXCHANGE_SERVER = Path(__file__).parent / "servers" / "exchange_server.py"
ALICE = "alice-caller-token-7f3a91c2"
BOB = "bob-caller-token-0d44e815"
CLIENT_ID = "yrden-gw"
CLIENT_SECRET = "exchange-client-secret-51ab"
CALL_TIMEOUT = 20.0


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("exchange-peer")
    out, log = workdir / "out", workdir / "log"
    with open(out, "wb") as out_file, open(log, "wb") as log_file:
        proc = subprocess.Popen(
            [
                PYTHON,
                str(EXCHANGE_SERVER),
                "--subjects",
                f"alice={ALICE},bob={BOB}",
                "--client",
                f"{CLIENT_ID}:{CLIENT_SECRET}",
            ],
            stdin=subprocess.DEVNULL,
            stdout=out_file,
            stderr=log_file,
            env=clean_env(),
        )
    deadline = time.monotonic() + 30
    while not out.read_text().strip():
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    yield out.read_text().strip()
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def gw(yrden: Path, peer: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    exchange = {
        "type": "tokenExchange",
        "tokenEndpoint": f"{peer}/token",
        "clientId": CLIENT_ID,
        "clientSecret": CLIENT_SECRET,
        "audience": "tasks-api",
    }
    config = {
        "gateway": {"clientTokens": [ALICE, BOB]},
        "mcpServers": {
            "tasks": {"url": f"{peer}/mcp", "auth": exchange},
            # The same over the handshake era: the call goes within the gateway's session, with its caller's token.
            "session": {"url": f"{peer}/mcp", "auth": exchange, "protocol": "2025-11-25"},
            "raw": {"url": f"{peer}/mcp", "auth": {"type": "forward"}},
            "plain": {"url": f"{peer}/mcp"},
        },
    }
    gateway = start_gateway(yrden, config, tmp_path_factory.mktemp("exchange-gw"))
    yield gateway
    gateway.stop()
    stop_quietly(gateway.children_at_stop)


def stats(peer: str) -> dict[str, Any]:
    return httpx2.get(f"{peer}/control/stats", timeout=10).json()


async def call(gw: Gateway, token: str, tool: str) -> tuple[bool, str]:
    async with mcp_session(gw.url, headers={"Authorization": f"Bearer {token}"}) as session:
        with anyio.fail_after(CALL_TIMEOUT):
            result = await session.client.call_tool(tool, {})
    return result.is_error, text_of(result)


async def test_each_call_reaches_the_upstream_with_its_own_callers_exchanged_token(gw: Gateway, peer: str) -> None:
    before = stats(peer)
    assert await call(gw, ALICE, "tasks__whoami") == (False, "alice")
    assert await call(gw, BOB, "tasks__whoami") == (False, "bob")
    assert await call(gw, ALICE, "tasks__whoami") == (False, "alice")
    after = stats(peer)
    assert after["calls"][len(before["calls"]) :] == ["xchg:alice", "xchg:bob", "xchg:alice"]
    # One exchange per caller: alice's second call used the token held from her first.
    exchanged = {u: after["exchanges"].get(u, 0) - before["exchanges"].get(u, 0) for u in ("alice", "bob")}
    assert exchanged == {"alice": 1, "bob": 1}
    assert after["last_exchange"]["audience"] == "tasks-api"
    assert after["last_exchange"]["resource"].endswith("/mcp")
    # The gateway's own connection (probe or handshake, lists) carried nobody's credential.
    by_method = after["authorization_by_method"]
    assert {"initialize", "tools/list"} <= set(by_method), by_method
    for method, kinds in by_method.items():
        if method != "tools/call":
            assert set(kinds) == {"none"}, by_method


async def test_a_handshake_era_upstream_gets_the_callers_token_within_the_gateways_session(
    gw: Gateway, peer: str
) -> None:
    before = stats(peer)
    assert await call(gw, BOB, "session__whoami") == (False, "bob")
    assert await call(gw, ALICE, "session__whoami") == (False, "alice")
    assert stats(peer)["calls"][len(before["calls"]) :] == ["xchg:bob", "xchg:alice"]
    log = gw.log_text()
    assert ALICE not in log and BOB not in log and CLIENT_SECRET not in log and "xchg_" not in log


async def test_the_callers_token_is_forwarded_only_where_the_config_says_so(gw: Gateway, peer: str) -> None:
    before = stats(peer)
    # "forward": the caller's own token goes as it is (the tool refuses it, which is what it reports).
    is_error, text = await call(gw, BOB, "raw__whoami")
    assert is_error and "raw:bob" in text
    # No auth: the call goes with nothing of the caller's.
    is_error, text = await call(gw, BOB, "plain__whoami")
    assert is_error and "(none)" in text
    assert stats(peer)["calls"][len(before["calls"]) :] == ["raw:bob", "none"]


async def test_a_refused_exchange_fails_the_call_and_says_why(
    yrden: Path, peer: str, tmp_path: Path
) -> None:
    # The gateway authenticates as a client the exchange endpoint does not know: nothing reaches the tool.
    config = {
        "gateway": {"clientTokens": [ALICE]},
        "mcpServers": {
            "tasks": {
                "url": f"{peer}/mcp",
                "auth": {"type": "tokenExchange", "tokenEndpoint": f"{peer}/token", "clientId": "stranger"},
            }
        },
    }
    gateway = start_gateway(yrden, config, tmp_path / "gw")
    try:
        before = stats(peer)
        async with mcp_session(gateway.url, headers={"Authorization": f"Bearer {ALICE}"}) as session:
            with anyio.fail_after(CALL_TIMEOUT):
                try:
                    result = await session.client.call_tool("tasks__whoami", {})
                    message = text_of(result) if result.is_error else "succeeded"
                except Exception as error:  # noqa: BLE001 (a JSON-RPC error is what is expected)
                    message = str(error)
        assert "refused to exchange the caller's token" in message and "invalid_client" in message, message
        after = stats(peer)
        assert after["calls"] == before["calls"]
        assert after["refused_exchanges"] == before["refused_exchanges"] + 1
        assert ALICE not in gateway.log_text() and ALICE not in message
    finally:
        gateway.stop()
        stop_quietly(gateway.children_at_stop)


async def test_concurrent_first_calls_of_one_caller_make_one_exchange(yrden: Path, peer: str, tmp_path: Path) -> None:
    # A gateway of its own, so that these are the caller's first calls; the exchange answers slowly, so all ten
    # calls are waiting for it together.
    config = {
        "gateway": {"clientTokens": [ALICE]},
        "mcpServers": {
            "tasks": {
                "url": f"{peer}/mcp",
                "auth": {
                    "type": "tokenExchange", "tokenEndpoint": f"{peer}/token",
                    "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
                },
            }
        },
    }
    gateway = start_gateway(yrden, config, tmp_path / "gw")
    httpx2.post(f"{peer}/control/exchange-delay", json={"seconds": 1.0}, timeout=10).raise_for_status()
    try:
        before = stats(peer)
        answers: list[tuple[bool, str]] = []
        async with mcp_session(gateway.url, headers={"Authorization": f"Bearer {ALICE}"}) as session:

            async def one() -> None:
                result = await session.client.call_tool("tasks__whoami", {})
                answers.append((result.is_error, text_of(result)))

            with anyio.fail_after(CALL_TIMEOUT):
                async with anyio.create_task_group() as group:
                    for _ in range(10):
                        group.start_soon(one)
        assert answers == [(False, "alice")] * 10
        after = stats(peer)
        assert after["exchanges"].get("alice", 0) - before["exchanges"].get("alice", 0) == 1
    finally:
        httpx2.post(f"{peer}/control/exchange-delay", json={"seconds": 0}, timeout=10)
        gateway.stop()
        stop_quietly(gateway.children_at_stop)
