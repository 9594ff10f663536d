"""Memory and time stay bounded whatever a client sends: huge batches, huge clientInfo, endless sessions.

Figures (RSS of the gateway from /proc, /healthz latency while the hostile request runs) are printed; the
bounds asserted are generous, for a loaded 2-core machine, and far below what the unbounded gateway reached
(1.35 GB for a 130,000-call batch, /healthz stalled 10 s; 137 MiB kept for ten 10 MiB clientInfo).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import queue
import subprocess
import threading
import time
from pathlib import Path

import httpx2
import pytest

from harness import INTEROP_DIR, LEGACY_VERSION, PYTHON, Gateway, RawSession, answer_to, await_until, clean_env, raw_mcp

HOSTILE_SERVER = INTEROP_DIR / "servers" / "hostile_server.py"
DOCS_TEMPLATE = "docs://{+base}/{+path}.md"
MAX_URI_BYTES = 16 * 1024
BATCH_VERSION = "2025-03-26"
MAX_BATCH = 1000
MIB = 1024 * 1024


def demo_only(yrden: Path, **gateway_keys) -> dict:
    return {"gateway": gateway_keys, "mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}}}


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def echo_batch(count: int, text: str = "x") -> bytes:
    members = [
        {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "demo__echo", "arguments": {"message": text}}}
        for i in range(count)
    ]
    return json.dumps(members, separators=(",", ":")).encode()


class HealthProbe:
    """Asks /healthz over and over while a hostile request runs; records the slowest answer and the peak RSS."""

    def __init__(self, gw: Gateway):
        self.gw = gw
        self.slowest = 0.0
        self.answers = 0
        self.peak_rss = rss_mib(gw.pid)
        self._stop = asyncio.Event()

    async def run(self) -> None:
        async with httpx2.AsyncClient(timeout=60) as http:
            while not self._stop.is_set():
                started = time.monotonic()
                response = await http.get(f"{self.gw.base}/healthz")
                assert response.status_code == 200
                self.slowest = max(self.slowest, time.monotonic() - started)
                self.answers += 1
                self.peak_rss = max(self.peak_rss, rss_mib(self.gw.pid))
                await asyncio.sleep(0.02)

    def stop(self) -> None:
        self._stop.set()


async def settled_rss(gw: Gateway, at_most: float) -> float:
    """The gateway's RSS once it is at most ``at_most`` MiB (freed memory is handed back shortly after work)."""
    try:
        return await await_until(lambda: (r := rss_mib(gw.pid)) <= at_most and r, timeout=15, interval=0.2)
    except TimeoutError:
        raise AssertionError(f"RSS stayed at {rss_mib(gw.pid):.0f} MiB, above {at_most:.0f} MiB, for 15 s") from None


@pytest.mark.alone  # /healthz's latency during the batch, with no other test loading the machine
async def test_a_130000_call_batch_is_refused_at_once_without_growing_memory(gateway, yrden):
    gw = gateway(demo_only(yrden))
    body = echo_batch(130_000)
    assert len(body) < 16 * MIB
    async with raw_mcp(gw.url, timeout=120) as raw:
        session = await raw.initialize(protocol_version=BATCH_VERSION)
        baseline = rss_mib(gw.pid)
        probe = HealthProbe(gw)
        probing = asyncio.create_task(probe.run())
        started = time.monotonic()
        response = await session.post(body)
        elapsed = time.monotonic() - started
        await asyncio.sleep(0.1)  # let the probe sample once more after the answer
        probe.stop()
        await probing
        after = await settled_rss(gw, baseline + 40)
    print(
        f"\n130k batch ({len(body) / MIB:.1f} MiB): HTTP {response.status_code} in {elapsed:.2f} s; RSS MiB "
        f"{baseline:.0f} -> peak {probe.peak_rss:.0f} -> {after:.0f}; slowest /healthz {probe.slowest * 1000:.0f} ms "
        f"of {probe.answers}"
    )
    assert response.status_code == 400, f"HTTP {response.status_code}: {response.text[:300]}"
    error = response.json()["error"]
    assert error["code"] == -32600 and f"at most {MAX_BATCH}" in error["message"], error
    assert probe.peak_rss < baseline + 300, f"peak RSS {probe.peak_rss:.0f} MiB from {baseline:.0f} MiB"
    assert probe.slowest < 2.0, f"/healthz took {probe.slowest:.1f} s during the batch"
    # The session is still usable afterwards.
    async with raw_mcp(gw.url) as raw:
        assert (await raw.initialize()).session_id


@pytest.mark.alone  # /healthz's latency during the batch, with no other test loading the machine
async def test_a_batch_at_the_limit_is_answered_whole_and_in_order(gateway, yrden):
    gw = gateway(demo_only(yrden))
    async with raw_mcp(gw.url, timeout=120) as raw:
        session = await raw.initialize(protocol_version=BATCH_VERSION)
        baseline = rss_mib(gw.pid)
        probe = HealthProbe(gw)
        probing = asyncio.create_task(probe.run())
        started = time.monotonic()
        response = await session.post(echo_batch(MAX_BATCH, text="y" * 200))
        elapsed = time.monotonic() - started
        probe.stop()
        await probing
        after = await settled_rss(gw, baseline + 40)
    print(
        f"\n{MAX_BATCH}-call batch: {elapsed:.2f} s; RSS MiB {baseline:.0f} -> peak {probe.peak_rss:.0f} -> "
        f"{after:.0f}; slowest /healthz {probe.slowest * 1000:.0f} ms of {probe.answers}"
    )
    assert response.status_code == 200, f"HTTP {response.status_code}: {response.text[:300]}"
    answers = response.json()
    assert [a["id"] for a in answers] == list(range(MAX_BATCH))
    assert all("y" * 200 in json.dumps(a["result"]) for a in answers), answers[0]
    assert probe.slowest < 2.0, f"/healthz took {probe.slowest:.1f} s during the batch"


async def test_ten_10_mib_client_infos_are_not_kept(gateway, yrden):
    gw = gateway(demo_only(yrden))
    blob = "z" * (10 * MIB)
    async with raw_mcp(gw.url, timeout=120) as raw:
        baseline = rss_mib(gw.pid)
        session_ids = []
        for _ in range(10):
            response = await raw.post(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": LEGACY_VERSION,
                        "capabilities": {},
                        "clientInfo": {"name": "huge", "version": "1.0", "description": blob},
                    },
                }
            )
            assert response.status_code == 200, f"HTTP {response.status_code}: {response.text[:300]}"
            session_ids.append(response.headers["mcp-session-id"])
        after = await settled_rss(gw, baseline + 30)
        print(f"\n10 x 10 MiB clientInfo: RSS MiB {baseline:.0f} -> {after:.0f} with the 10 sessions open")
        # Every session still works: only what they keep was cut.
        headers = {"Mcp-Session-Id": session_ids[-1], "MCP-Protocol-Version": LEGACY_VERSION}
        ping = await raw.post({"jsonrpc": "2.0", "id": "p", "method": "ping"}, headers=headers)
        assert answer_to(ping, "p")["result"] == {}


async def test_sessions_past_max_sessions_get_503_naming_the_limit(gateway, yrden):
    gw = gateway(demo_only(yrden, maxSessions=3))
    async with raw_mcp(gw.url) as raw:
        sessions = [await raw.initialize() for _ in range(3)]
        refused = await raw.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}},
            }
        )
        assert refused.status_code == 503, f"HTTP {refused.status_code}: {refused.text[:300]}"
        assert "mcp-session-id" not in refused.headers
        error = answer_to(refused, 0)["error"]
        assert "gateway.maxSessions" in error["message"] and "3" in error["message"], error
        # Ending one makes room for the next.
        assert (await sessions[0].delete()).status_code == 204
        assert (await raw.initialize()).session_id


async def test_an_idle_session_ends_at_its_timeout(gateway, yrden):
    gw = gateway(demo_only(yrden, sessionIdleTimeout=1))
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        started = time.monotonic()

        async def ended() -> bool:
            response = await raw.http.get(f"{gw.base}/healthz")
            return response.json()["sessions"] == 0

        await await_until(ended, timeout=10, interval=0.1, what="the idle session to end")
        waited = time.monotonic() - started
        print(f"\nidle session (timeout 1 s) ended after {waited:.1f} s")
        gone = await session.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert gone.status_code == 404, f"HTTP {gone.status_code}: {gone.text[:300]}"


async def test_a_session_listening_on_its_stream_is_not_idle(gateway, yrden):
    gw = gateway(demo_only(yrden, sessionIdleTimeout=1))
    async with raw_mcp(gw.url) as raw:
        listening = await raw.initialize()
        witness = await raw.initialize()
        async with raw.http.stream("GET", gw.url, headers={**listening.headers(), "Accept": "text/event-stream"}) as stream:
            assert stream.status_code == 200

            async def one_session_left() -> bool:
                return (await raw.http.get(f"{gw.base}/healthz")).json()["sessions"] == 1

            # The witness, which sends nothing, ends at its deadline; then wait as long again.
            await await_until(one_session_left, timeout=10, interval=0.1, what="the idle witness to end")
            waited_since = time.monotonic()
            await await_until(lambda: time.monotonic() - waited_since > 1.5, timeout=5)
            answer = await listening.request("ping", id="alive")
            gone = await witness.post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert answer["result"] == {}, "the listening session was ended as idle"
        assert gone.status_code == 404, "the witness should have ended"

# --- yrden stdio: the host's stdin is bounded too ------------------------------------------------------------


class StdioGateway:
    """``yrden stdio`` driven with raw lines; stdout is read by a thread into a queue."""

    def __init__(self, yrden: Path, config_file: Path):
        self.proc = subprocess.Popen(
            [str(yrden), "stdio", "--config", str(config_file)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=clean_env(),
        )
        self.lines: queue.Queue[dict] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def send(self, message: dict | bytes) -> None:
        assert self.proc.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next_answer(self, timeout: float = 20) -> dict:
        """The next message with an id (a response); notifications are skipped."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if "id" in message:
                return message

    def request(self, id: int | str, method: str, params: dict | None = None) -> dict:
        self.send({"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}})
        return self.next_answer()

    def close(self) -> None:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def stdio_gateway(yrden: Path, tmp_path: Path):
    started: list[StdioGateway] = []

    def start(config: dict) -> StdioGateway:
        config_file = tmp_path / f"stdio{len(started)}.json"
        config_file.write_text(json.dumps(config))
        gw = StdioGateway(yrden, config_file)
        started.append(gw)
        initialized = gw.request(0, "initialize", {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
        assert "result" in initialized, initialized
        gw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return gw

    yield start
    for gw in started:
        gw.close()


def test_a_stdio_line_longer_than_16_mib_is_dropped_without_holding_it(stdio_gateway):
    gw = stdio_gateway({"mcpServers": {}})
    baseline = rss_mib(gw.proc.pid)
    peak = baseline
    chunk = b"x" * MIB
    for _ in range(64):  # a 64 MiB line, four times the limit
        gw.send(chunk)
        peak = max(peak, rss_mib(gw.proc.pid))
    gw.send(b"\n")
    refused = gw.next_answer()
    after_ping = gw.request("after", "ping")
    print(f"\n64 MiB stdio line: RSS MiB {baseline:.0f} -> peak {peak:.0f}")
    assert refused["id"] is None and refused["error"]["code"] == -32600, refused
    assert "longer than" in refused["error"]["message"], refused
    assert after_ping == {"jsonrpc": "2.0", "id": "after", "result": {}}
    assert peak < baseline + 48, f"RSS grew from {baseline:.0f} to {peak:.0f} MiB for one line"


def test_stdio_requests_past_the_in_flight_bound_are_refused_at_once(stdio_gateway, yrden):
    gw = stdio_gateway(demo_only(yrden))
    deadline = time.monotonic() + 20
    while not any(t["name"] == "demo__slow" for t in gw.request("list", "tools/list")["result"]["tools"]):
        assert time.monotonic() < deadline, "demo__slow never appeared"
        time.sleep(0.1)
    slots = 128
    for i in range(slots + 2):
        gw.send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "demo__slow", "arguments": {"seconds": 60, "steps": 1}}})
    refused = [gw.next_answer(timeout=20), gw.next_answer(timeout=20)]
    assert sorted(r["id"] for r in refused) == [slots, slots + 1], refused
    assert all("too many requests in flight" in r["error"]["message"] for r in refused), refused
    # Notifications still get through while every slot is taken: cancelling a call frees its slot.
    gw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0, "reason": "test"}})
    deadline = time.monotonic() + 20
    for attempt in range(1000):
        gw.send({"jsonrpc": "2.0", "id": f"ping-{attempt}", "method": "ping"})
        answer = gw.next_answer()
        while answer["id"] == 0:  # the cancelled call, if it is answered at all
            answer = gw.next_answer()
        if "result" in answer:
            break
        assert time.monotonic() < deadline, f"no slot came free after the cancellation: {answer}"
        time.sleep(0.05)
    assert answer == {"jsonrpc": "2.0", "id": f"ping-{attempt}", "result": {}}


# ---------------------------------------------------------------------------
# Resource URIs against upstream templates


def docs_and_demo(yrden: Path) -> dict:
    """A server with an ordinary template of two reserved expressions, beside the demo server."""
    return {
        "mcpServers": {
            "docs": {"command": PYTHON, "args": [str(HOSTILE_SERVER), "--template", DOCS_TEMPLATE]},
            "demo": {"command": str(yrden), "args": ["demo-server"]},
        }
    }


def post_in_thread(gw: Gateway, session: RawSession, body: dict) -> tuple[threading.Event, queue.Queue]:
    """POSTs ``body`` in ``session`` from a thread of its own: the event is set once the request is written
    whole, the queue then gets the JSON-RPC answer (or the exception)."""
    sent = threading.Event()
    answers: queue.Queue = queue.Queue()

    def run() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", gw.port, timeout=300)
        try:
            headers = {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **session.headers(),
            }
            connection.request("POST", "/mcp", body=json.dumps(body).encode(), headers=headers)
            sent.set()
            response = connection.getresponse()
            text = response.read().decode()
            if text.startswith("{"):
                answers.put(json.loads(text))
            else:
                data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
                answers.put(next(json.loads(d) for d in data if '"id"' in d))
        except Exception as error:  # handed to the test, which fails with it
            sent.set()
            answers.put(error)
        finally:
            connection.close()

    threading.Thread(target=run, daemon=True).start()
    return sent, answers


async def test_a_uri_built_to_backtrack_does_not_stall_another_clients_call(gateway, yrden):
    """`docs://` and 16,000 slashes against `docs://{+base}/{+path}.md`: a backtracking match took tens of
    seconds on the gateway's one loop thread, during which no other client was answered."""
    gw = gateway(docs_and_demo(yrden))
    async with raw_mcp(gw.url) as raw:
        hostile = await raw.initialize()
        other = await raw.initialize()
        uri = "docs://" + "/" * 16_000
        read = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}}
        sent, answers = post_in_thread(gw, hostile, read)
        assert await asyncio.to_thread(sent.wait, 30), "the hostile read was never sent"
        call = {"name": "demo__echo", "arguments": {"message": "still here"}}
        echoed = await asyncio.wait_for(other.request("tools/call", call, id=2), timeout=5)
        assert echoed["result"]["content"][0]["text"] == "still here", echoed
        refused = await asyncio.to_thread(answers.get, True, 120)
        assert not isinstance(refused, Exception), refused
        assert refused["error"]["code"] == -32002, refused  # no template matches: resource not found
        # The ordinary reads still route by the template.
        found = await hostile.request("resources/read", {"uri": "docs://guide/intro.md"}, id=3)
        assert found["result"]["contents"][0]["text"] == "read docs://guide/intro.md", found


async def test_a_uri_past_the_bound_is_refused_naming_the_bound(gateway, yrden):
    gw = gateway(docs_and_demo(yrden))
    async with raw_mcp(gw.url) as raw:
        session = await raw.initialize()
        longest = "docs://a/" + "b" * (MAX_URI_BYTES - len("docs://a/") - 3) + ".md"
        assert len(longest) == MAX_URI_BYTES
        found = await session.request("resources/read", {"uri": longest}, id=1)
        assert found["result"]["contents"][0]["text"] == f"read {longest}", str(found)[:300]
        too_long = longest[:-3] + "b.md"
        refused = await session.request("resources/read", {"uri": too_long}, id=2)
        assert refused["error"]["code"] == -32602, str(refused)[:300]
        assert str(MAX_URI_BYTES) in refused["error"]["message"], refused["error"]["message"]
        assert too_long not in json.dumps(refused), "the refusal does not echo the URI back"
        completion = {"ref": {"type": "ref/resource", "uri": too_long}, "argument": {"name": "base", "value": "x"}}
        refused = await session.request("completion/complete", completion, id=3)
        assert refused["error"]["code"] == -32602 and str(MAX_URI_BYTES) in refused["error"]["message"], refused
