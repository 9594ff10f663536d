"""The loop-lag probe: drives the heavy operator paths of issue 26 against one real gateway while a prober, in a
process of its own, times ``GET /healthz`` and a ``tools/call`` to another (small, stdio) server, and reads the
gateway's ``yrden_event_loop_lag_seconds`` histogram before and after each path.

Every client request and every stdio child of the gateway is served by one event loop thread; whatever an
operator's action runs there keeps all of them waiting. The paths, in order, each over what the one before left:

1. ``add 5,000 tools``: a server of 5,000 tools added through the admin API, until it is connected and counted;
2. ``profile of 100 patterns``: a profile whose 100 patterns pick from that catalog, PUT, then listed whole;
3. ``2,000 definitions change``: the server rewrites 2,001 tools' descriptions at once (one is kept for path 5),
   until ``GET /api/v1/tool-pins`` shows each of them changed;
4. ``2,000 approvals, 8 clients``: 8 admin clients approve 2,000 of them;
5. ``10,000 tools churning``: 20 profiles of 41 patterns are added (one config PUT), then a server of 10,000
   tools that moves its window of tools on every 250 ms, while one more approval and one profile PUT are made;
6. ``unlisted reads, 100k resources``: a server of 100,000 resources is added, then 8 clients read URIs it
   does not list (routed by the gateway's origin lookup);
7. ``app pages calling tools``: what the web console does for an MCP App's ``tools/call`` (the server's tool
   list from the admin API, revalidated by its ETag, then the call on the server's own endpoint), 4 pages at a
   time.

The prober runs in a process of its own so that nothing this process does (parsing a catalog of 5,000 tools)
delays a sample: a late answer is the gateway's. Used by ``test_loop_lag.py``, which holds the figures to a
ceiling that catches a frozen loop, and by ``Benchmarks/loop_lag.sh``, which prints them against the issue's
budget (``/healthz`` worst <= 100 ms and p99 <= 20 ms, the other server's call worst <= 100 ms). Run alone:
``python loop_lag.py run --yrden PATH [--quick]`` prints the figures as ``PATH``/``ALL`` lines.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2

import harness
from harness import INTEROP_DIR, PYTHON, Gateway, RawMcp, RawSession, admin_events

CATALOG_SERVER = INTEROP_DIR / "servers" / "catalog_server.py"
LAG_METRIC = "yrden_event_loop_lag_seconds"
HEALTHZ_EVERY = 0.01
CALL_EVERY = 0.02
PROBE_TIMEOUT = 60.0
NOUNS = ["files", "issues", "pages", "users", "tickets", "builds", "alerts", "notes", "orders", "events",
         "tasks", "repos", "images", "tables", "queues", "mails", "charts", "spaces", "calls", "logs"]  # fmt: skip
VERBS = ["read", "list", "create", "update", "delete", "search", "sync", "export", "archive", "watch"]


def tool_name(i: int) -> str:
    """The name ``catalog_server.py`` gives its tool number ``i``."""
    return f"{NOUNS[i % len(NOUNS)]}_{VERBS[(i // len(NOUNS)) % len(VERBS)]}_{i}"


@dataclass(frozen=True)
class Scale:
    """How much of each path is driven; the defaults are the issue's."""

    big_tools: int = 5000
    profile_patterns: int = 100
    changed: int = 2000
    approvals: int = 2000
    approval_clients: int = 8
    churn_tools: int = 10_000
    churn_profiles: int = 20
    churn_patterns: int = 41
    churn_seconds: float = 6.0
    resources: int = 100_000
    unlisted_reads: int = 800
    read_clients: int = 8
    app_calls: int = 300
    app_pages: int = 4
    path_timeout: float = 90.0


# ---------------------------------------------------------------------------
# The prober: a process of its own


def probe_main(base: str, out: Path) -> None:
    """Times ``GET /healthz`` every 10 ms and ``tools/call echo`` on ``/servers/other/mcp`` every 20 ms, each
    from a thread of its own, until stdin closes; then writes the samples to ``out``: per kind a list of
    ``[start, seconds, ok]`` (``start`` on the monotonic clock, which every process of the machine shares)."""
    stop = threading.Event()
    samples: dict[str, list[list[Any]]] = {"healthz": [], "call": []}

    def healthz() -> None:
        with httpx2.Client(timeout=PROBE_TIMEOUT) as http:
            while not stop.is_set():
                start = time.monotonic()
                try:
                    ok = http.get(f"{base}/healthz").status_code == 200
                except httpx2.HTTPError:
                    ok = False
                samples["healthz"].append([start, time.monotonic() - start, ok])
                stop.wait(HEALTHZ_EVERY)

    def call(http: httpx2.Client, headers: dict[str, str]) -> None:
        n = 0
        while not stop.is_set():
            n += 1
            body = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": f"probe {n}"}}}  # fmt: skip
            start = time.monotonic()
            try:
                response = http.post(f"{base}/servers/other/mcp", json=body, headers=headers)
                ok = response.status_code == 200 and f"probe {n}" in response.text
            except httpx2.HTTPError:
                ok = False
            samples["call"].append([start, time.monotonic() - start, ok])
            stop.wait(CALL_EVERY)

    with httpx2.Client(timeout=PROBE_TIMEOUT) as http:
        headers = {"Accept": harness.JSON_AND_SSE, "Content-Type": "application/json"}
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": harness.LEGACY_VERSION, "capabilities": {},
                           "clientInfo": {"name": "loop-lag-prober", "version": "1"}}}  # fmt: skip
        response = http.post(f"{base}/servers/other/mcp", json=init, headers=headers)
        response.raise_for_status()
        headers["Mcp-Session-Id"] = response.headers["mcp-session-id"]
        headers["MCP-Protocol-Version"] = harness.LEGACY_VERSION
        http.post(f"{base}/servers/other/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                  headers=headers).raise_for_status()  # fmt: skip
        threads = [threading.Thread(target=healthz), threading.Thread(target=call, args=(http, headers))]
        for thread in threads:
            thread.start()
        print("ready", flush=True)
        sys.stdin.read()  # until the driver closes it
        stop.set()
        for thread in threads:
            thread.join()
    out.write_text(json.dumps(samples))


class Prober:
    """The prober process, started on a gateway and stopped to collect its samples."""

    def __init__(self, base: str, workdir: Path) -> None:
        self.out = workdir / "probe-samples.json"
        self.proc = subprocess.Popen(
            [PYTHON, str(Path(__file__).resolve()), "probe", base, str(self.out)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=INTEROP_DIR, text=True,
        )  # fmt: skip
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if line.strip() != "ready":
            self.proc.kill()
            raise RuntimeError(f"the prober did not start (said {line!r})")

    def stop(self) -> dict[str, list[list[Any]]]:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=PROBE_TIMEOUT + 10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        return json.loads(self.out.read_text())


# ---------------------------------------------------------------------------
# Figures


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def lag_buckets(metrics_text: str) -> dict[float, int] | None:
    """``le`` (seconds; inf for +Inf) to cumulative count of the lag histogram, or None when it is not exposed."""
    found = {}
    for match in re.finditer(rf'^{LAG_METRIC}_bucket\{{le="([^"]+)"\}} (\d+)$', metrics_text, re.M):
        le = math.inf if match.group(1) == "+Inf" else float(match.group(1))
        found[le] = int(match.group(2))
    return found or None


@dataclass
class Samples:
    seconds: list[float] = field(default_factory=list)
    failed: int = 0

    @property
    def worst(self) -> float | None:
        return max(self.seconds) if self.seconds else None

    def summary(self, name: str) -> dict[str, Any]:
        return {
            f"{name}_n": len(self.seconds),
            f"{name}_p50_ms": ms(percentile(self.seconds, 50)),
            f"{name}_p99_ms": ms(percentile(self.seconds, 99)),
            f"{name}_max_ms": ms(self.worst),
            f"{name}_failed": self.failed,
        }


def ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


@dataclass
class PathFigures:
    name: str
    start: float
    end: float
    finished: bool
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    healthz: Samples = field(default_factory=Samples)
    call: Samples = field(default_factory=Samples)
    lag_before: dict[float, int] | None = None
    lag_after: dict[float, int] | None = None

    @property
    def lag_ticks(self) -> int | None:
        if self.lag_before is None or self.lag_after is None:
            return None
        return self.lag_after[math.inf] - self.lag_before[math.inf]

    @property
    def lag_max_bound(self) -> tuple[float, float] | None:
        """(lower, upper) seconds the path's most delayed tick was late by: the histogram's bucket it fell in."""
        if self.lag_before is None or self.lag_after is None or not self.lag_ticks:
            return None
        total = self.lag_ticks
        lower = 0.0
        for le in sorted(self.lag_after):
            if self.lag_after[le] - self.lag_before.get(le, 0) == total:
                return (lower, le)
            lower = le
        return (lower, math.inf)

    def line(self) -> str:
        figures: dict[str, Any] = {"seconds": round(self.end - self.start, 2), "finished": self.finished}
        figures |= self.healthz.summary("healthz") | self.call.summary("call")
        figures["lag_ticks"] = self.lag_ticks
        bound = self.lag_max_bound
        figures["lag_max_s"] = None if bound is None else f"{bound[0]:g}-{bound[1]:g}"
        figures |= self.extra
        if self.error:
            figures["error"] = self.error.replace(" ", "_")[:200]
        return " ".join(f"{k}={'n/a' if v is None else v}" for k, v in figures.items())


@dataclass
class Report:
    paths: list[PathFigures]
    binary: str

    @property
    def all(self) -> PathFigures:
        whole = PathFigures("ALL", self.paths[0].start, self.paths[-1].end, all(p.finished for p in self.paths))
        for path in self.paths:
            whole.healthz.seconds += path.healthz.seconds
            whole.healthz.failed += path.healthz.failed
            whole.call.seconds += path.call.seconds
            whole.call.failed += path.call.failed
        whole.lag_before, whole.lag_after = self.paths[0].lag_before, self.paths[-1].lag_after
        return whole

    def text(self) -> str:
        lines = [f"loop-lag probe of {self.binary}"]
        lines += [f"PATH name={p.name.replace(' ', '_')} {p.line()}" for p in self.paths]
        lines.append(f"ALL {self.all.line()}")
        return "\n".join(lines)


def attribute(report: Report, samples: dict[str, list[list[Any]]]) -> None:
    """Each prober sample to the path during which it was sent."""
    for kind in ("healthz", "call"):
        for start, seconds, ok in samples[kind]:
            for path in report.paths:
                if path.start <= start < path.end:
                    bucket: Samples = getattr(path, kind)
                    bucket.seconds.append(seconds)
                    bucket.failed += 0 if ok else 1
                    break


# ---------------------------------------------------------------------------
# Driving the gateway


class Driver:
    """The operator and the clients: admin requests and MCP sessions over one connection pool."""

    def __init__(self, gw: Gateway, http: httpx2.AsyncClient, scale: Scale) -> None:
        self.gw = gw
        self.http = http
        self.scale = scale

    async def admin(self, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        """An admin request; a 503 with Retry-After (a listing the gateway is too busy to prepare) is retried."""
        for _ in range(100):
            response = await self.http.request(method, f"{self.gw.base}/api/v1{path}", **kwargs)
            if response.status_code != 503 or "retry-after" not in response.headers:
                return response
            await anyio.sleep(float(response.headers["retry-after"]))
        return response

    async def session(self, path: str) -> RawSession:
        return await RawMcp(f"{self.gw.base}{path}", self.http).initialize(client_name="loop-lag-driver")

    async def call(self, session: RawSession, name: str, arguments: dict[str, Any], id: Any = 1) -> str:
        answer = await session.request("tools/call", {"name": name, "arguments": arguments}, id=id)
        assert "result" in answer, f"tools/call {name}: {answer}"
        return "".join(c.get("text", "") for c in answer["result"]["content"])

    async def add_server(self, server_id: str, *args: str, expected_tools: int) -> dict[str, Any]:
        """POSTs a catalog server and returns its view once it is connected with ``expected_tools`` tools."""
        async with admin_events(self.gw, timeout=self.scale.path_timeout) as events:
            config = {"command": PYTHON, "args": [str(CATALOG_SERVER), "--authority", server_id, *args]}
            added = await self.admin("POST", "/servers", json={"id": server_id, "config": config})
            assert added.status_code in (200, 201), f"POST /servers {server_id}: {added.status_code} {added.text}"
            await events.reach_state(server_id, "connected", self.scale.path_timeout)

        async def counted() -> dict[str, Any] | None:
            view = (await self.admin("GET", f"/servers/{server_id}")).json()
            return view if view["counts"]["tools"] == expected_tools else None

        return await harness.await_until(counted, self.scale.path_timeout, interval=0.25, what=f"{server_id} counted")

    async def changed_pins(self, server_id: str) -> int:
        pins = (await self.admin("GET", "/tool-pins")).json()["pins"]
        return sum(1 for p in pins if p["server"] == server_id and p["state"] == "changed")

    async def list_all(self, session: RawSession) -> int:
        count, cursor, n = 0, None, 0
        while True:
            n += 1
            answer = await session.request("tools/list", {"cursor": cursor} if cursor else {}, id=f"list-{n}")
            count += len(answer["result"]["tools"])
            cursor = answer["result"].get("nextCursor")
            if not cursor:
                return count


def profile_patterns(server_id: str, count: int, offset: int = 0) -> list[str]:
    """``count`` distinct patterns over ``catalog_server.py``'s names (noun and verb pairs, then single tools)."""
    pairs = [f"{server_id}__{noun}_{verb}_*" for verb in VERBS for noun in NOUNS]
    singles = [f"{server_id}__*_{i}" for i in range(10_000)]
    every = pairs[offset % len(pairs) :] + pairs[: offset % len(pairs)] + singles
    return every[:count]


async def path_add_big(d: Driver, extra: dict[str, Any]) -> None:
    started = time.monotonic()
    await d.add_server("big", "--tools", str(d.scale.big_tools), expected_tools=d.scale.big_tools + 3)
    extra["connected_s"] = round(time.monotonic() - started, 2)


async def path_profile(d: Driver, extra: dict[str, Any]) -> None:
    body = {"tools": {"allow": profile_patterns("big", d.scale.profile_patterns - 1), "deny": ["big__*_7"]}}
    started = time.monotonic()
    put = await d.admin("PUT", "/profiles/wide", json=body)
    extra["put_ms"] = ms(time.monotonic() - started)
    assert put.status_code in (200, 201), f"PUT /profiles/wide: {put.status_code} {put.text}"
    listed = await d.list_all(await d.session("/mcp/wide"))
    extra["listed"] = listed
    assert listed > 0, "the profile of 100 patterns lists nothing"


async def path_change(d: Driver, extra: dict[str, Any]) -> None:
    session = await d.session("/mcp")
    started = time.monotonic()
    assert await d.call(session, "big__shift", {"start": 0, "count": d.scale.changed + 1}) == f"shifted {d.scale.changed + 1}"

    async def all_changed() -> int | None:
        changed = await d.changed_pins("big")
        return changed if changed >= d.scale.changed + 1 else None

    await harness.await_until(all_changed, d.scale.path_timeout, interval=0.5, what="every shifted tool changed")
    extra["all_changed_s"] = round(time.monotonic() - started, 2)


async def path_approve(d: Driver, extra: dict[str, Any]) -> None:
    todo = list(range(d.scale.approvals))
    statuses: dict[int, int] = {}
    latencies: list[float] = []

    async def client() -> None:
        while todo:
            i = todo.pop()
            started = time.monotonic()
            response = await d.admin("POST", f"/servers/big/tools/{tool_name(i)}/approve")
            latencies.append(time.monotonic() - started)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            # Kept up to date, so that a path cut off by its deadline still says how far it got.
            extra["approved"] = statuses.get(200, 0)
            extra["approve_p50_ms"], extra["approve_max_ms"] = ms(percentile(latencies, 50)), ms(max(latencies))

    async with anyio.create_task_group() as tg:
        for _ in range(d.scale.approval_clients):
            tg.start_soon(client)
    assert statuses.get(200, 0) == d.scale.approvals, f"approvals answered {statuses}"


async def path_churn(d: Driver, extra: dict[str, Any]) -> None:
    config = await d.admin("GET", "/config")
    document = config.json()
    document["profiles"] = {
        **document.get("profiles", {}),
        **{
            f"churn{i}": {"tools": {"allow": profile_patterns("churn", d.scale.churn_patterns, offset=i * 9)}}
            for i in range(d.scale.churn_profiles)
        },
    }
    started = time.monotonic()
    put = await d.admin("PUT", "/config", json=document, headers={"If-Match": config.headers["etag"]})
    extra["profiles_put_ms"] = ms(time.monotonic() - started)
    assert put.status_code == 200, f"PUT /config with {d.scale.churn_profiles} profiles: {put.status_code} {put.text}"
    started = time.monotonic()
    await d.add_server("churn", "--tools", str(d.scale.churn_tools), expected_tools=d.scale.churn_tools + 3)
    extra["connected_s"] = round(time.monotonic() - started, 2)
    session = await d.session("/servers/churn/mcp")
    answer: list[str] = []

    async def churn() -> None:
        args = {"seconds": d.scale.churn_seconds, "every": 0.25, "count": d.scale.churn_tools // 20}
        answer.append(await d.call(session, "churn", args, id="churn"))

    async with anyio.create_task_group() as tg:
        tg.start_soon(churn)
        await anyio.sleep(d.scale.churn_seconds / 3)  # well into the churn
        t = time.monotonic()
        approved = await d.admin("POST", f"/servers/big/tools/{tool_name(d.scale.changed)}/approve")
        extra["approve_ms"] = ms(time.monotonic() - t)
        assert approved.status_code == 200, f"approve under churn: {approved.status_code} {approved.text}"
        body = {"tools": {"allow": profile_patterns("churn", d.scale.churn_patterns, offset=7)}}
        t = time.monotonic()
        put = await d.admin("PUT", "/profiles/churn0", json=body)
        extra["profile_put_ms"] = ms(time.monotonic() - t)
        assert put.status_code == 200, f"PUT /profiles/churn0 under churn: {put.status_code} {put.text}"
    extra["generations"] = answer[0].split()[0] if answer else None


async def path_unlisted_reads(d: Driver, extra: dict[str, Any]) -> None:
    started = time.monotonic()
    await d.add_server("lib", "--resources", str(d.scale.resources), "--page-size", "2000", expected_tools=3)
    extra["connected_s"] = round(time.monotonic() - started, 2)
    todo = list(range(d.scale.unlisted_reads))
    latencies: list[float] = []

    async def client() -> None:
        session = await d.session("/mcp")
        while todo:
            k = todo.pop()
            uri = f"res://lib/unlisted/{k}"
            t = time.monotonic()
            answer = await session.request("resources/read", {"uri": uri}, id=k)
            latencies.append(time.monotonic() - t)
            assert answer.get("result", {}).get("contents", [{}])[0].get("text") == f"read {uri}", answer
            extra["reads"] = len(latencies)
            extra["read_p50_ms"], extra["read_max_ms"] = ms(percentile(latencies, 50)), ms(max(latencies))

    async with anyio.create_task_group() as tg:
        for _ in range(d.scale.read_clients):
            tg.start_soon(client)


async def path_app_calls(d: Driver, extra: dict[str, Any]) -> None:
    session = await d.session("/servers/big/mcp")  # the console's one session per server, which every page uses
    todo = list(range(d.scale.app_calls))
    latencies: list[float] = []
    etag: list[str] = []  # the console's copy of the server's tool list, revalidated before each call

    async def page() -> None:
        while todo:
            i = todo.pop()
            t = time.monotonic()
            # As the console's app host does before each call: the server's tools, to check the tool is there
            # and visible to apps (a copy it has is revalidated by its ETag).
            headers = {"If-None-Match": etag[-1]} if etag else {}
            listed = await d.admin("GET", "/servers/big/tools", headers=headers)
            assert listed.status_code in (200, 304), f"GET /servers/big/tools: {listed.status_code}"
            if listed.status_code == 200 and (tag := listed.headers.get("etag")):
                etag.append(tag)
            assert await d.call(session, tool_name(i), {"id": "x"}, id=f"app-{i}") == f"called {tool_name(i)}"
            latencies.append(time.monotonic() - t)
            extra["calls"] = len(latencies)
            extra["app_call_p50_ms"], extra["app_call_max_ms"] = ms(percentile(latencies, 50)), ms(max(latencies))

    async with anyio.create_task_group() as tg:
        for _ in range(d.scale.app_pages):
            tg.start_soon(page)


PATHS: list[tuple[str, Callable[[Driver, dict[str, Any]], Awaitable[None]]]] = [
    ("add 5,000 tools", path_add_big),
    ("profile of 100 patterns", path_profile),
    ("2,000 definitions change", path_change),
    ("2,000 approvals, 8 clients", path_approve),
    ("10,000 tools churning", path_churn),
    ("unlisted reads, 100k resources", path_unlisted_reads),
    ("app pages calling tools", path_app_calls),
]


def first_error(error: BaseException) -> str:
    """What went wrong, in one line: the first leaf of an exception group."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}"


def gateway_config(workdir: Path) -> dict[str, Any]:
    """The small server the prober calls; each path adds what it needs."""
    return {
        "gateway": {"dataDir": str(workdir / "data")},
        "mcpServers": {"other": {"command": PYTHON, "args": [str(CATALOG_SERVER), "--authority", "other"]}},
    }


async def run(
    start_gateway: Callable[[dict[str, Any]], Gateway],
    workdir: Path,
    scale: Scale,
    binary: str,
    only: set[int] | None = None,
) -> Report:
    """Starts a gateway (through ``start_gateway``, given its config), drives every path (or those numbered in
    ``only``, from 1, which must include what they build on) and returns the figures."""
    gw = start_gateway(gateway_config(workdir))
    paths: list[PathFigures] = []
    prober = Prober(gw.base, workdir)
    try:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(scale.path_timeout), limits=httpx2.Limits(max_connections=64)) as http:
            driver = Driver(gw, http, scale)
            for number, (name, drive) in enumerate(PATHS, start=1):
                if only and number not in only:
                    continue
                figures = PathFigures(name, time.monotonic(), 0.0, False)
                figures.lag_before = lag_buckets((await http.get(f"{gw.base}/metrics")).text)
                try:
                    with anyio.fail_after(scale.path_timeout):
                        await drive(driver, figures.extra)
                    figures.finished = True
                except TimeoutError:
                    figures.error = f"not done within {scale.path_timeout:g} s"
                except Exception as e:  # a path that failed is reported with the figures of the others
                    figures.error = first_error(e)
                figures.end = time.monotonic()
                figures.lag_after = lag_buckets((await http.get(f"{gw.base}/metrics")).text)
                paths.append(figures)
    finally:
        samples = prober.stop()
    report = Report(paths, binary)
    attribute(report, samples)
    return report


QUICK = Scale(
    approvals=40, churn_tools=2000, churn_seconds=4.0, unlisted_reads=400, app_calls=150, path_timeout=90.0
)
"""The interop test's scale, for the debug build CI runs, where the writer's work takes 20-30 times as long as in
a release build: every path at the issue's size but the approvals (each round of 8 republishes a server of 5,000
tools under a profile of 100 patterns and rewrites a pin file of 7,000 definitions) and the churning server
(2,000 tools under the 20 profiles), and the open-ended ones (churn, reads, app calls) shorter. ``make bench``
drives the issue's full scale against a release build."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    probe = sub.add_parser("probe", help="(internal) the prober process")
    probe.add_argument("base")
    probe.add_argument("out", type=Path)
    runner = sub.add_parser("run", help="drive every path against a gateway binary and print the figures")
    runner.add_argument("--yrden", type=Path, default=harness.yrden_bin())
    runner.add_argument("--quick", action="store_true", help="the interop test's scale")
    runner.add_argument("--only", help="the paths to drive, by number from 1 (comma-separated)")
    runner.add_argument("--keep", type=Path, help="work in this directory and keep it (the gateway's log)")
    args = parser.parse_args()
    if args.command == "probe":
        probe_main(args.base, args.out)
        return
    scale = QUICK if args.quick else Scale()
    with tempfile.TemporaryDirectory(prefix="yrden-loop-lag-") as tmp:
        workdir = args.keep or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        started: list[Gateway] = []

        def start(config: dict[str, Any]) -> Gateway:
            gw = harness.start_gateway(args.yrden, config, workdir / "gateway", extra_args=("--log-level", "warning"))
            started.append(gw)
            return gw

        try:
            only = {int(n) for n in args.only.split(",")} if args.only else None
            report = anyio.run(run, start, workdir, scale, str(args.yrden), only)
        finally:
            for gw in started:
                gw.stop()
                harness.stop_quietly(gw.children_at_stop)
    print(report.text())


if __name__ == "__main__":
    main()
