"""N gateway replicas behind HAProxy, configured by ``deploy/haproxy.cfg`` as a user would run it.

``Replicas``: N ``yrden serve`` processes with one config (each on its own port, in its own directory, started
the harness's way) and one HAProxy in front of them on a free port, with its stats socket for the tests to see
what it sees (``show servers state``, the stick table). ``Haproxy`` alone for other uses. The pytest fixture
``replicas`` is a factory: ``replicas(config, n=3, env=...)``; the config is a parameter so a test can give the
replicas a shared store (``"store"``) or anything else.

Every response through the balancer names the replica that answered in ``X-Yrden-Replica`` (the shipped
config sets it), so a test sees where each request went instead of inferring it. ``traced_client`` opens the
official SDK client through the balancer and records every HTTP exchange it made.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from harness import (
    JSON_AND_SSE,
    MODERN_VERSION,
    REPO_ROOT,
    REQUEST_TIMEOUT,
    Gateway,
    answer_to,
    descendants_of,
    free_port,
    listening,
    start_gateway,
    stop_quietly,
    wait_until,
)

HAPROXY_CONFIG = REPO_ROOT / "deploy" / "haproxy.cfg"
BACKEND = "yrden"
REPLICA_HEADER = "x-yrden-replica"
MAX_REPLICAS = 5  # as many as deploy/haproxy.cfg has server lines for
STATE_TIMEOUT = 30.0


def demo_config(yrden: Path | str) -> dict[str, Any]:
    """One built-in demo server: the lightest config that serves tools (no Python upstream per replica)."""
    return {"mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}}}


# ---------------------------------------------------------------------------
# HAProxy


class Haproxy:
    """``haproxy -f deploy/haproxy.cfg`` in the foreground, its backends and address given through the
    environment the config reads; started and waited for (listening, every backend up) when constructed."""

    def __init__(self, backends: list[str], log_path: Path, *, config: Path = HAPROXY_CONFIG) -> None:
        if not 1 <= len(backends) <= MAX_REPLICAS:
            raise ValueError(f"deploy/haproxy.cfg takes 1 to {MAX_REPLICAS} replicas, not {len(backends)}")
        binary = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
        if binary is None:
            pytest.fail("no haproxy: install it (`make service-deps`)", pytrace=False)
        self.port = free_port()
        self.log_path = log_path
        # A short directory of its own: a Unix socket's path must fit in 107 bytes, and pytest's may not.
        self._sockdir = Path(tempfile.mkdtemp(prefix="yrden-lb-"))
        self.stats_socket = self._sockdir / "stats.sock"
        self.names = [f"replica{i + 1}" for i in range(len(backends))]
        env = {k: v for k, v in os.environ.items() if not k.startswith("YRDEN_")}
        env.update({f"YRDEN_REPLICA_{i + 1}": address for i, address in enumerate(backends)})
        env.update(YRDEN_LB_BIND=f"127.0.0.1:{self.port}", YRDEN_LB_STATS_SOCKET=str(self.stats_socket))
        self._log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [binary, "-db", "-f", str(config)], stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            env=env,
        )  # fmt: skip
        try:
            wait_until(self._serving, STATE_TIMEOUT, "haproxy listening with its stats socket")
            for name in self.names:
                self.wait_state(name, up=True)
        except BaseException:
            self.stop()
            raise

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def command(self, line: str) -> str:
        """One command on the stats socket (``show servers state``, ``show table yrden``, ...): its answer."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(str(self.stats_socket))
            s.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode(errors="replace")

    def server_states(self) -> dict[str, dict[str, str]]:
        """``show servers state`` of the backend: each server's fields by column name (``srv_op_state``: 0
        stopped, 2 running; ``srv_id``, ``srv_addr``, ``srv_port``, ...)."""
        out: dict[str, dict[str, str]] = {}
        columns: list[str] = []
        for line in self.command(f"show servers state {BACKEND}").splitlines():
            if line.startswith("# "):
                columns = line[2:].split()
            elif columns and line.strip():
                row = dict(zip(columns, line.split(), strict=False))
                out[row["srv_name"]] = row
        return out

    def stats(self) -> dict[str, dict[str, str]]:
        """``show stat`` of the backend's servers: each one's CSV fields by name (``scur``: requests it is
        serving now; ``stot``: served in all; ``status``: UP, DOWN, ...)."""
        lines = self.command("show stat").splitlines()
        columns = lines[0].lstrip("# ").split(",")
        out = {}
        for line in lines[1:]:
            row = dict(zip(columns, line.split(","), strict=False))
            if row.get("pxname") == BACKEND and row.get("svname") not in ("BACKEND", "FRONTEND", None):
                out[row["svname"]] = row
        return out

    def is_up(self, name: str) -> bool:
        return self.server_states()[name]["srv_op_state"] == "2"

    def wait_state(self, name: str, *, up: bool, timeout: float = STATE_TIMEOUT) -> None:
        """Return once HAProxy holds ``name`` up (or down): a lasting state, read from the stats socket."""
        wanted = "up" if up else "down"
        try:
            wait_until(lambda: self.is_up(name) == up, timeout, f"haproxy to mark {name} {wanted}", interval=0.05)
        except AssertionError as e:
            raise AssertionError(f"{e}; servers: {self.server_states()}\n--- haproxy log ---\n{self.log_text()}")

    def stuck_to(self, session_id: str) -> str | None:
        """The replica the stick table sends ``session_id`` to, or None when it is not in the table."""
        answer = self.command(f"show table {BACKEND} key {session_id}")
        for line in answer.splitlines():
            if "key=" not in line:
                continue
            fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
            if "server_key" in fields:
                return fields["server_key"]
            if "server_id" in fields:
                by_id = {row["srv_id"]: name for name, row in self.server_states().items()}
                return by_id.get(fields["server_id"])
        return None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: HAProxy's immediate stop
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if not self._log.closed:
            self._log.close()
        shutil.rmtree(self._sockdir, ignore_errors=True)

    def _serving(self) -> bool:
        if self.proc.poll() is not None:
            raise RuntimeError(f"haproxy exited with status {self.proc.returncode}\n--- log ---\n{self.log_text()}")
        return listening(self.port) and self.stats_socket.exists()


# ---------------------------------------------------------------------------
# The replicas


class Replicas:
    """``n`` gateways with ``config`` behind one HAProxy. ``replica(name)`` is the running Gateway of
    ``replica1``..``replicaN`` (HAProxy's server names); ``kill(name)`` SIGKILLs it, ``restart(name)`` starts
    it again on its port and directory and waits for HAProxy to take it back."""

    def __init__(
        self,
        binary: Path,
        config: Mapping[str, Any] | str,
        workdir: Path,
        *,
        n: int = 3,
        env: Mapping[str, str] | None = None,
        start_together: bool = True,
    ) -> None:
        self.binary = binary
        self.config = config
        self.workdir = workdir
        self.env = dict(env or {})
        self.gateways: dict[str, Gateway] = {}
        self.earlier: list[Gateway] = []  # killed or stopped ones, for their logs
        self.haproxy: Haproxy | None = None
        try:
            self._start_all([f"replica{i + 1}" for i in range(n)], together=start_together)
            backends = [f"127.0.0.1:{gw.port}" for gw in self.gateways.values()]
            self.haproxy = Haproxy(backends, workdir / "haproxy.log")
        except BaseException:
            self.close()
            raise

    def _start_all(self, names: list[str], *, together: bool) -> None:
        """Start every replica, at once (as a Deployment's pods start: N replicas meeting an empty store
        together) or one after the other; each ready before this returns. A replica that fails to start fails
        the whole group, after the others have started, so that close() stops them all."""

        def start(name: str) -> Gateway:
            return start_gateway(self.binary, self.config, self.workdir / name, env=self.env)

        if not together:
            for name in names:
                self.gateways[name] = start(name)
            return
        with ThreadPoolExecutor(max_workers=len(names)) as pool:
            futures = {name: pool.submit(start, name) for name in names}
        errors = []
        for name, future in futures.items():
            try:
                self.gateways[name] = future.result()
            except Exception as e:  # noqa: BLE001 - reported below, after the others are kept for close()
                errors.append(f"{name}: {e}")
        if errors:
            raise RuntimeError("replicas did not start:\n" + "\n".join(errors))

    @property
    def lb(self) -> Haproxy:
        assert self.haproxy is not None
        return self.haproxy

    @property
    def url(self) -> str:
        """The MCP endpoint through the balancer."""
        return self.lb.url

    @property
    def names(self) -> list[str]:
        return list(self.gateways)

    def replica(self, name: str) -> Gateway:
        return self.gateways[name]

    def kill(self, name: str) -> None:
        """SIGKILL the replica (no drain, no goodbye) and reap it; its stdio children die with it."""
        gw = self.gateways[name]
        children = [p.pid for p in descendants_of(gw.pid)]
        gw.proc.send_signal(signal.SIGKILL)
        gw.proc.wait(timeout=10)
        gw.stop()  # closes its log, forgets it as live
        stop_quietly(children)
        self.earlier.append(gw)

    def stop(self, name: str) -> int:
        """SIGTERM the replica, as a rolling update does, and return its exit status once it has exited (it
        drains the calls it is running first)."""
        gw = self.gateways[name]
        status = gw.stop()
        stop_quietly(gw.children_at_stop)
        self.earlier.append(gw)
        return status

    def restart(self, name: str, *, wait_up: bool = True) -> Gateway:
        """Start the replica again with its own config file, on its port, in its directory (its previous log
        kept beside as ``yrden.log.N``); by default return once HAProxy holds it up."""
        old = self.gateways[name]
        if old.proc.poll() is None:
            old.stop()
            self.earlier.append(old)
        kept = old.log_path.with_name(f"yrden.log.{len(list(old.workdir.glob('yrden.log.*'))) + 1}")
        if old.log_path.exists():
            old.log_path.rename(kept)
            old.log_path = kept
        config = old.config_path.read_text()
        gw = start_gateway(self.binary, config, old.workdir, env=self.env, port=old.port)
        self.gateways[name] = gw
        if wait_up:
            self.lb.wait_state(name, up=True)
        return gw

    def metric(self, name: str, sample: str) -> float:
        """The value of ``sample`` (a metric name with its labels, as ``/metrics`` prints it) on one replica,
        asked directly, not through the balancer; 0 when it is not there yet."""
        response = httpx2.get(f"{self.gateways[name].base}/metrics", timeout=10)
        assert response.status_code == 200, f"{name} /metrics: HTTP {response.status_code}"
        for line in response.text.splitlines():
            if line.startswith(sample + " "):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    def close(self) -> None:
        problems = []
        if self.haproxy is not None:
            self.haproxy.stop()
        for gw in self.gateways.values():
            gw.stop()
            stop_quietly(gw.children_at_stop)
            if gw.proc.returncode is None:
                problems.append(f"yrden (pid {gw.pid}) did not exit")
        assert not problems, "; ".join(problems)


# ---------------------------------------------------------------------------
# 2026-07-28 requests by hand (httpx): for what the SDK hides, a connection closed without an answer


MODERN_ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "yrden-interop-replicas", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


@dataclass
class Outcome:
    """One stateless call through the balancer: when it ran, who answered, and what went wrong if anything."""

    started: float
    ended: float
    status: int | None  # None: no answer at all (the connection was closed or reset)
    replica: str | None
    error: str | None  # None when the call came back with the expected result


async def stateless_call(
    http: httpx2.AsyncClient, url: str, tool: str, arguments: dict[str, Any], *, request_id: int, expect: str
) -> Outcome:
    """A 2026-07-28 ``tools/call`` (envelope in ``_meta``, routing headers, no session); its result's text must
    be ``expect``."""
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": MODERN_ENVELOPE},
    }
    headers = {
        "Accept": JSON_AND_SSE,
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN_VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
    }
    started = time.monotonic()
    try:
        response = await http.post(url, content=json.dumps(body).encode(), headers=headers)
    except httpx2.TransportError as e:
        return Outcome(started, time.monotonic(), None, None, f"no answer: {type(e).__name__}: {e}")
    ended = time.monotonic()
    replica = response.headers.get(REPLICA_HEADER)
    if response.status_code != 200:
        return Outcome(started, ended, response.status_code, replica, f"HTTP {response.status_code}")
    answer = answer_to(response, request_id)
    texts = [c.get("text") for c in answer.get("result", {}).get("content", []) if isinstance(c, dict)]
    error = None if texts == [expect] and not answer["result"].get("isError") else f"wrong answer: {answer}"
    return Outcome(started, ended, 200, replica, error)


# ---------------------------------------------------------------------------
# The SDK client, traced


@dataclass(frozen=True)
class Exchange:
    """One HTTP request the SDK made and the head of its answer."""

    http_method: str
    rpc_method: str | None  # the JSON-RPC method of a POSTed request or notification, else None
    status: int
    replica: str | None  # X-Yrden-Replica: who answered, or (a balancer's 5xx) who failed
    session_sent: str | None
    session_minted: str | None


@dataclass(eq=False)
class TracedClient:
    client: Client
    exchanges: list[Exchange] = field(default_factory=list)

    def since(self, mark: int) -> list[Exchange]:
        return self.exchanges[mark:]


@asynccontextmanager
async def traced_client(
    url: str, *, mode: str = "auto", timeout: float = REQUEST_TIMEOUT
) -> AsyncIterator[TracedClient]:
    """The official SDK ``Client`` over Streamable HTTP at ``url`` (``mode`` as in ``harness.mcp_session``),
    with every HTTP exchange it makes recorded in ``exchanges`` as its answer's head arrives."""
    traced = TracedClient(client=None)  # type: ignore[arg-type]

    async def on_response(response: httpx2.Response) -> None:
        request = response.request
        rpc_method = None
        if request.method == "POST":
            try:
                body = json.loads(request.content or b"null")
                rpc_method = body.get("method") if isinstance(body, dict) else None
            except (ValueError, httpx2.RequestNotRead):
                pass
        traced.exchanges.append(
            Exchange(
                http_method=request.method,
                rpc_method=rpc_method,
                status=response.status_code,
                replica=response.headers.get(REPLICA_HEADER),
                session_sent=request.headers.get("mcp-session-id"),
                session_minted=response.headers.get("mcp-session-id"),
            )
        )

    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                timeout=httpx2.Timeout(timeout, read=300.0),
                limits=httpx2.Limits(max_connections=64, max_keepalive_connections=64),
                event_hooks={"response": [on_response]},
            )
        )
        traced.client = Client(
            streamable_http_client(url, http_client=http), mode=mode, read_timeout_seconds=timeout, cache=None
        )
        await stack.enter_async_context(traced.client)
        yield traced


# ---------------------------------------------------------------------------
# The fixture


ReplicasFactory = Callable[..., Replicas]


@pytest.fixture
def replicas(yrden: Path, tmp_path: Path) -> Iterator[ReplicasFactory]:
    """Factory: ``replicas(config=None, *, n=3, env=None, start_together=True) -> Replicas``, every replica
    ready and HAProxy holding each up. ``config`` defaults to ``demo_config``. Everything is stopped at teardown."""
    made: list[Replicas] = []

    def factory(
        config: Mapping[str, Any] | str | None = None, *, n: int = 3, env=None, start_together: bool = True
    ) -> Replicas:
        workdir = tmp_path / f"replicas{len(made)}"
        workdir.mkdir()
        config = config if config is not None else demo_config(yrden)
        group = Replicas(yrden, config, workdir, n=n, env=env, start_together=start_together)
        made.append(group)
        return group

    yield factory
    for group in made:
        group.close()
