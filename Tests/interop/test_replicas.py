"""Three gateway replicas behind HAProxy with deploy/haproxy.cfg, driven through the balancer by the official SDK:
2026-07-28 calls spread round-robin, a replica killed mid-run costs only the calls it held, a handshake-era
session stays on its replica and starts again elsewhere when that replica dies."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

import anyio
import httpx2
import pytest
from mcp import MCPError

from harness import LEGACY_VERSION, MODERN_VERSION, text_of, wait_until
from replicas import replicas  # noqa: F401  (the fixture)
from replicas import Outcome, Replicas, ReplicasFactory, stateless_call, traced_client

CALLS = 1000
WORKERS = 8
SLOW_SECONDS = 8
CALLS_METRIC = 'yrden_upstream_requests_total{server="demo",method="tools/call"}'


@dataclass
class Call:
    started: float
    ended: float
    error: str | None


async def echo_calls(client, count: int, workers: int, *, out: list[Call], stop: anyio.Event | None = None) -> None:
    """``count`` demo__echo calls from ``workers`` concurrent tasks (or, with ``stop``, until it is set), each
    checked for its echoed text; every call's times and error (None when it came back right) into ``out``."""
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while (stop is None and next_index < count) or (stop is not None and not stop.is_set()):
            index = next_index
            next_index += 1
            started = time.monotonic()
            error = None
            try:
                result = await client.call_tool("demo__echo", {"message": f"call {index}"})
                if result.is_error or text_of(result) != f"call {index}":
                    error = f"wrong answer: {text_of(result)!r}"
            except MCPError as e:
                error = f"MCP error {e.error.code}: {e.error.message}"
            out.append(Call(started, time.monotonic(), error))

    async with anyio.create_task_group() as tg:
        for _ in range(workers):
            tg.start_soon(worker)


def calls_metric(group: Replicas) -> dict[str, float]:
    return {name: group.metric(name, CALLS_METRIC) for name in group.names}


async def test_stateless_calls_spread_over_every_replica(replicas: ReplicasFactory) -> None:
    group = replicas()
    before = calls_metric(group)
    calls: list[Call] = []
    async with traced_client(group.url) as traced:
        assert traced.client.protocol_version == MODERN_VERSION
        mark = len(traced.exchanges)
        await echo_calls(traced.client, CALLS, WORKERS, out=calls)
        answered = Counter(e.replica for e in traced.since(mark) if e.rpc_method == "tools/call")

    errors = [c.error for c in calls if c.error]
    assert len(calls) == CALLS and not errors, f"{len(errors)} of {len(calls)} calls failed: {errors[:5]}"
    # Round-robin: each replica took about a third (HAProxy's rotation is exact; a little slack for nothing).
    assert set(answered) == set(group.names), f"answered by {answered}"
    assert all(count >= CALLS // 3 - 10 for count in answered.values()), f"not round-robin: {answered}"
    # And each replica says so itself: its own count of calls to the demo server grew by what it answered.
    grown = {name: value - before[name] for name, value in calls_metric(group).items()}
    assert grown == {name: float(answered[name]) for name in group.names}, f"metrics {grown}, headers {answered}"
    # No session anywhere: 2026-07-28 requests are balanced one by one.
    assert not any(e.session_minted or e.session_sent for e in traced.exchanges)


async def test_a_killed_replica_costs_only_the_calls_it_held(replicas: ReplicasFactory) -> None:
    """kill -9 of one replica under traffic: the calls it was running fail (a 502 naming it, or, on a reused
    client connection, the connection closed without an answer, HAProxy's way of letting the client retry),
    nothing sent after HAProxy marked it down fails, and once restarted it takes traffic again. By hand with
    httpx: the SDK client treats a connection closed without an answer as the end of the whole client."""
    group = replicas()
    victim = "replica2"
    request_ids = iter(range(1, 1_000_000))
    async with httpx2.AsyncClient(timeout=60, limits=httpx2.Limits(max_connections=32)) as http:

        async def slow_call(out: list[Outcome]) -> None:
            out.append(
                await stateless_call(
                    http, group.url, "demo__slow", {"seconds": SLOW_SECONDS, "steps": 1},
                    request_id=next(request_ids), expect=f"done after {SLOW_SECONDS} s",
                )  # fmt: skip
            )

        async def echo_worker(out: list[Outcome], stop: anyio.Event) -> None:
            while not stop.is_set():
                n = next(request_ids)
                out.append(
                    await stateless_call(
                        http, group.url, "demo__echo", {"message": f"call {n}"}, request_id=n, expect=f"call {n}"
                    )
                )

        slow: list[Outcome] = []
        calls: list[Outcome] = []
        stop = anyio.Event()

        async def wait_calls(count: int) -> None:
            with anyio.fail_after(60):
                while len(calls) < count:
                    await anyio.sleep(0.01)

        async with anyio.create_task_group() as tg:
            for _ in range(6):
                tg.start_soon(slow_call, slow)
            # Round-robin puts two on each replica: wait until HAProxy says each is running its two.
            await anyio.to_thread.run_sync(
                lambda: wait_until(
                    lambda: all(int(row["scur"]) == 2 for row in group.lb.stats().values()),
                    30,
                    "two slow calls in flight on every replica",
                )
            )
            for _ in range(WORKERS):
                tg.start_soon(echo_worker, calls, stop)
            await wait_calls(20)

            group.kill(victim)
            await anyio.to_thread.run_sync(lambda: group.lb.wait_state(victim, up=False))
            marked_down_at = time.monotonic()
            at_mark = len(calls)
            await wait_calls(at_mark + 300)

            await anyio.to_thread.run_sync(lambda: group.restart(victim))
            back_at = time.monotonic()
            await wait_calls(len(calls) + 300)
            stop.set()

    # The slow calls: the victim's two failed, with a 502 naming it or no answer; the four others finished.
    assert len(slow) == 6
    failed_slow = [o for o in slow if o.error]
    assert len(failed_slow) == 2, f"the victim held two slow calls; these failed: {failed_slow}"
    assert all(o.replica == victim or o.status is None for o in failed_slow), failed_slow
    assert all(o.replica != victim for o in slow if not o.error)
    # The echo calls: a failure is a call the victim held when it died (no more than were in flight), and
    # none sent after HAProxy marked it down failed.
    failed = [o for o in calls if o.error]
    assert all(o.started < marked_down_at for o in failed), f"calls sent after the mark failed: {failed[:5]}"
    assert all(o.replica in (victim, None) for o in failed), f"a call failed on a live replica: {failed[:5]}"
    assert len(failed) <= WORKERS, f"more echo calls failed ({len(failed)}) than were in flight ({WORKERS})"
    after_mark = [o for o in calls if o.started >= marked_down_at]
    assert len(after_mark) >= 300 and not [o for o in after_mark if o.error]
    # Back: the restarted replica answers its share again.
    after_back = Counter(o.replica for o in calls if o.started >= back_at)
    assert after_back[victim] > 0, f"{victim} took no traffic after its restart: {after_back}"


async def test_a_replica_stopped_gracefully_loses_no_call(replicas: ReplicasFactory) -> None:
    """SIGTERM of one replica under traffic (a rolling update): it finishes the calls it runs, answers new ones
    503 until HAProxy takes it out, and HAProxy sends those to another replica: no call fails."""
    group = replicas()
    victim = "replica3"
    request_ids = iter(range(1, 1_000_000))
    async with httpx2.AsyncClient(timeout=60, limits=httpx2.Limits(max_connections=32)) as http:
        slow: list[Outcome] = []
        calls: list[Outcome] = []
        stop = anyio.Event()

        async def slow_call() -> None:
            slow.append(
                await stateless_call(
                    http, group.url, "demo__slow", {"seconds": 3, "steps": 1},
                    request_id=next(request_ids), expect="done after 3 s",
                )  # fmt: skip
            )

        async def echo_worker() -> None:
            while not stop.is_set():
                n = next(request_ids)
                calls.append(
                    await stateless_call(
                        http, group.url, "demo__echo", {"message": f"call {n}"}, request_id=n, expect=f"call {n}"
                    )
                )

        async with anyio.create_task_group() as tg:
            for _ in range(6):
                tg.start_soon(slow_call)
            await anyio.to_thread.run_sync(
                lambda: wait_until(
                    lambda: all(int(row["scur"]) == 2 for row in group.lb.stats().values()),
                    30,
                    "two slow calls in flight on every replica",
                )
            )
            for _ in range(WORKERS):
                tg.start_soon(echo_worker)
            with anyio.fail_after(30):
                while len(calls) < 20:
                    await anyio.sleep(0.01)
            status = await anyio.to_thread.run_sync(lambda: group.stop(victim))
            at_exit = len(calls)
            with anyio.fail_after(60):
                while len(calls) < at_exit + 200:
                    await anyio.sleep(0.01)
            stop.set()

    assert status == 0
    assert len(slow) == 6 and not [o for o in slow if o.error], f"slow calls failed: {slow}"
    assert sum(o.replica == victim for o in slow) == 2, "the stopped replica did not finish its two calls"
    failed = [o for o in calls if o.error]
    assert not failed, f"{len(failed)} of {len(calls)} calls failed while {victim} stopped: {failed[:5]}"
    assert not group.lb.is_up(victim)


async def test_a_session_stays_on_its_replica_and_starts_again_elsewhere(replicas: ReplicasFactory) -> None:
    group = replicas()
    async with traced_client(group.url, mode="legacy") as first:
        assert first.client.protocol_version == LEGACY_VERSION
        for i in range(30):
            result = await first.client.call_tool("demo__echo", {"message": f"sticky {i}"})
            assert text_of(result) == f"sticky {i}"
        session_id = next(e.session_minted for e in first.exchanges if e.rpc_method == "initialize")
        assert session_id
        in_session = [e for e in first.exchanges if e.session_sent == session_id]
        home = {e.replica for e in first.exchanges if e.rpc_method == "initialize"} | {e.replica for e in in_session}
        assert len(home) == 1, f"the session's requests reached {Counter(e.replica for e in in_session)}"
        (home_replica,) = home
        assert len(in_session) >= 30
        assert group.lb.stuck_to(session_id) == home_replica

        group.kill(home_replica)
        mark = len(first.exchanges)
        with pytest.raises(MCPError):
            await first.client.call_tool("demo__echo", {"message": "after the kill"})
        # Its next request reached a live replica, which does not know the session: 404.
        answer = [e for e in first.since(mark) if e.rpc_method == "tools/call"]
        assert answer and answer[-1].status == 404, f"expected 404, got {answer}"
        assert answer[-1].replica in set(group.names) - {home_replica}

    # The host starts a new session (the SDK's initialize again): it goes to a live replica and stays there.
    async with traced_client(group.url, mode="legacy") as second:
        for i in range(10):
            result = await second.client.call_tool("demo__echo", {"message": f"again {i}"})
            assert text_of(result) == f"again {i}"
        new_id = next(e.session_minted for e in second.exchanges if e.rpc_method == "initialize")
        replicas_seen = {e.replica for e in second.exchanges if e.session_sent == new_id or e.session_minted}
        assert len(replicas_seen) == 1 and home_replica not in replicas_seen, replicas_seen


async def test_clients_behind_the_balancer_are_told_apart_by_x_forwarded_for(replicas: ReplicasFactory, yrden) -> None:
    """Behind HAProxy every connection comes from HAProxy's address: without ``trustedProxies`` the anonymous
    clients behind it would be one client, sharing one ``maxSessionsPerClient``. With HAProxy trusted, the
    address it appends to ``X-Forwarded-For`` is the client, and what a client writes there itself is not."""
    config = {
        "gateway": {"maxSessionsPerClient": 1, "trustedProxies": ["127.0.0.1"]},
        "mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}},
    }
    group = replicas(config, n=1)
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": {"name": "xff", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

    async def initialize(source: str, extra: dict[str, str] | None = None) -> httpx2.Response:
        transport = httpx2.AsyncHTTPTransport(local_address=source)
        async with httpx2.AsyncClient(transport=transport, timeout=30) as http:
            return await http.post(group.url, json=body, headers={**headers, **(extra or {})})

    first = await initialize("127.0.0.2")
    assert first.status_code == 200, first.text[:300]
    # Another address behind the same balancer is another client.
    other = await initialize("127.0.0.3")
    assert other.status_code == 200, f"a second client behind HAProxy was refused: {other.text[:300]}"
    # The first client again, claiming to be someone else: HAProxy appends its real address, which is the client.
    again = await initialize("127.0.0.2", {"X-Forwarded-For": "127.0.0.9"})
    assert again.status_code == 503, f"HTTP {again.status_code}: {again.text[:300]}"
    assert "gateway.maxSessionsPerClient" in again.text
