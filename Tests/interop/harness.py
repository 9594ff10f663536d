"""Shared helpers for the Yrden interop tests.

- locating the ``yrden`` binary and the peers (venv Python, sample server);
- starting and stopping a gateway process (``start_gateway``/``Gateway``);
- process inspection through /proc (children of the gateway, their state);
- an MCP client session through the official Python SDK (``mcp_session``);
- raw HTTP on the MCP endpoint with httpx2 (``RawMcp``), for what a client
  library would hide: ids, headers, status codes.

Nothing here knows the gateway's internals; it drives it as a user would.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import SubscriptionLost

INTEROP_DIR = Path(__file__).resolve().parent
REPO_ROOT = INTEROP_DIR.parent.parent
SAMPLE_SERVER = INTEROP_DIR / "servers" / "sample_server.py"
PYTHON = sys.executable  # the venv's interpreter: it has mcp and mcp-server-time installed

READY_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
REQUEST_TIMEOUT = 30.0

LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
MODES = ("legacy", "auto")

SAMPLE_README_TEXT = "Sample server for the Yrden interop tests.\n"


# ---------------------------------------------------------------------------
# Locating things


def yrden_bin() -> Path:
    """The gateway binary: ``$YRDEN_BIN``, else ``<repo>/.build/debug/yrden``."""
    env = os.environ.get("YRDEN_BIN")
    return Path(env).resolve() if env else REPO_ROOT / ".build" / "debug" / "yrden"


def standard_config(yrden: Path | str) -> dict[str, Any]:
    """The config most tests use: the built-in demo server, mcp-server-time and the sample server."""
    return {
        "mcpServers": {
            "demo": {"command": str(yrden), "args": ["demo-server"]},
            "time": {"command": PYTHON, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
            "sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]},
        }
    }


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Where a gateway started without a data directory of its own keeps its tool pins and tokens during a run: never
# the user's own (~/.local/share/yrden).
RUN_DATA_HOME = tempfile.mkdtemp(prefix="yrden-interop-data-")
atexit.register(shutil.rmtree, RUN_DATA_HOME, ignore_errors=True)


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a gateway: ours without any ``YRDEN_*`` override, with a data home of this run's, plus
    ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("YRDEN_")}
    env["XDG_DATA_HOME"] = RUN_DATA_HOME
    env.update(extra or {})
    return env


# ---------------------------------------------------------------------------
# Processes, through /proc


@dataclass(frozen=True)
class ProcInfo:
    pid: int
    ppid: int
    state: str  # one letter, as in /proc/PID/stat: R, S, D, Z, T...
    cmdline: tuple[str, ...]

    @property
    def command(self) -> str:
        return " ".join(self.cmdline)


def proc_info(pid: int) -> ProcInfo | None:
    """State, parent and command line of ``pid``, or None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        raw_cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # The command name sits in parentheses and may itself hold spaces or parentheses.
    rest = stat[stat.rindex(")") + 2 :].split()
    cmdline = tuple(part.decode(errors="replace") for part in raw_cmdline.split(b"\0") if part)
    return ProcInfo(pid=pid, ppid=int(rest[1]), state=rest[0], cmdline=cmdline)


def all_processes() -> list[ProcInfo]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (info := proc_info(int(entry.name))) is not None:
            out.append(info)
    return out


def children_of(pid: int) -> list[ProcInfo]:
    """The direct children of ``pid`` (by PPID), zombies included."""
    return sorted((p for p in all_processes() if p.ppid == pid), key=lambda p: p.pid)


def descendants_of(pid: int) -> list[ProcInfo]:
    """Children, grandchildren, ... of ``pid``."""
    procs = all_processes()
    found: list[ProcInfo] = []
    frontier = {pid}
    while frontier:
        layer = [p for p in procs if p.ppid in frontier]
        found.extend(layer)
        frontier = {p.pid for p in layer}
    return sorted(found, key=lambda p: p.pid)


def is_running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (a zombie has exited; only its entry is left)."""
    info = proc_info(pid)
    return info is not None and info.state != "Z"


def find_child(pid: int, needle: str, *, running_only: bool = True) -> ProcInfo | None:
    """The first descendant of ``pid`` whose command line contains ``needle``."""
    for p in descendants_of(pid):
        if needle in p.command and (not running_only or p.state != "Z"):
            return p
    return None


async def await_until(
    predicate: Callable[[], Any], timeout: float, interval: float = 0.1, what: str = "condition"
) -> Any:
    """Poll ``predicate`` (sync or async) until it returns something truthy; return that.

    Raises TimeoutError after ``timeout`` seconds.
    """
    with anyio.fail_after(timeout):
        while True:
            value = predicate()
            if hasattr(value, "__await__"):
                value = await value
            if value:
                return value
            await anyio.sleep(interval)


def wait_until(predicate: Callable[[], Any], timeout: float, what: str = "condition", interval: float = 0.1) -> Any:
    """``await_until`` for synchronous tests: poll ``predicate`` until it returns something truthy; return that.

    Raises AssertionError naming ``what`` after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def listening(port: int) -> bool:
    """Whether something accepts TCP connections on loopback ``port``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


ASKING_SERVER = INTEROP_DIR / "servers" / "asking_server.py"


@contextmanager
def asking_over_http(log_path: Path, *flags: str) -> Iterator[str]:
    """``servers/asking_server.py`` over Streamable HTTP on a free port, for the block: its MCP URL. ``flags``
    go to the server (``--modern-only``)."""
    port = free_port()
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [PYTHON, str(ASKING_SERVER), "--port", str(port), *flags],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=clean_env(),
        )
    try:
        wait_until(lambda: listening(port), 20, "the asking server listening")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait(timeout=10)


# ---------------------------------------------------------------------------
# The gateway process

LIVE_GATEWAYS: list[Gateway] = []
"""Gateways started and not yet stopped; the conftest attaches their logs to failing tests."""


@dataclass
class Gateway:
    proc: subprocess.Popen[bytes]
    port: int
    workdir: Path
    config_path: Path
    log_path: Path
    killed: bool = False  # SIGKILL was needed to stop it
    stop_seconds: float | None = None  # how long it took to exit after SIGTERM
    children_at_stop: list[int] = field(default_factory=list)  # descendants seen just before SIGTERM
    _log_file: Any = field(default=None, repr=False)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def children(self) -> list[ProcInfo]:
        return children_of(self.proc.pid)

    def child(self, needle: str) -> ProcInfo | None:
        """The running upstream whose command line contains ``needle`` (e.g. ``"sample_server.py"``)."""
        return find_child(self.proc.pid, needle)

    def upstream_pids(self) -> dict[str, int]:
        """Pids of the standard config's upstreams that are running now, by server id."""
        needles = {"demo": "demo-server", "time": "mcp_server_time", "sample": "sample_server.py"}
        out = {}
        for server_id, needle in needles.items():
            if (p := self.child(needle)) is not None:
                out[server_id] = p.pid
        return out

    def stop(self, timeout: float = STOP_TIMEOUT) -> int:
        """SIGTERM, wait up to ``timeout`` s, then SIGKILL. Returns the exit status (negative: signal)."""
        if self.proc.poll() is None:
            self.children_at_stop = [p.pid for p in descendants_of(self.proc.pid)]
            started = time.monotonic()
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
                self.stop_seconds = time.monotonic() - started
            except subprocess.TimeoutExpired:
                self.killed = True
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._close_log()
        if self in LIVE_GATEWAYS:
            LIVE_GATEWAYS.remove(self)
        assert self.proc.returncode is not None
        return self.proc.returncode

    def _close_log(self) -> None:
        if self._log_file is not None and not self._log_file.closed:
            self._log_file.close()


def write_config(workdir: Path, config: Mapping[str, Any] | str, name: str = "yrden.json") -> Path:
    path = workdir / name
    path.write_text(config if isinstance(config, str) else json.dumps(config, indent=2))
    return path


def start_gateway(
    binary: Path,
    config: Mapping[str, Any] | str,
    workdir: Path,
    *,
    extra_args: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
    ready_timeout: float = READY_TIMEOUT,
    ready_path: str = "/readyz",
    port: int | None = None,
) -> Gateway:
    """Write ``config``, start ``yrden serve`` on a free loopback port (or ``port``: a gateway started again
    where a balancer expects it), wait for ``/readyz`` to answer 200.

    ``ready_path="/healthz"`` returns as soon as the gateway listens, before its upstreams are connected.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    config_path = write_config(workdir, config)
    log_path = workdir / "yrden.log"
    port = port if port is not None else free_port()
    log_file = open(log_path, "wb")
    argv = [str(binary), "serve", "--config", str(config_path), "--listen", f"127.0.0.1:{port}", *extra_args]
    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, cwd=workdir, env=clean_env({"XDG_DATA_HOME": str(workdir / "xdg"), **(env or {})})
    )
    gw = Gateway(proc=proc, port=port, workdir=workdir, config_path=config_path, log_path=log_path, _log_file=log_file)
    LIVE_GATEWAYS.append(gw)
    try:
        wait_ready(gw, ready_timeout, ready_path)
    except BaseException:
        gw.stop()
        raise
    return gw


def wait_ready(gw: Gateway, timeout: float, path: str = "/readyz") -> None:
    deadline = time.monotonic() + timeout
    last = "no answer yet"
    with httpx2.Client(timeout=2.0) as http:
        while True:
            if gw.proc.poll() is not None:
                raise RuntimeError(
                    f"yrden exited with status {gw.proc.returncode} before it was ready\n--- log ---\n{gw.log_text()}"
                )
            try:
                r = http.get(f"{gw.base}{path}")
                if r.status_code == 200:
                    return
                last = f"HTTP {r.status_code}: {r.text[:300]}"
            except httpx2.TransportError as e:
                last = f"{type(e).__name__}: {e}"
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"GET {path} did not answer 200 within {timeout:.0f}s (last: {last})\n--- log ---\n{gw.log_text()}"
                )
            time.sleep(0.1)


# ---------------------------------------------------------------------------
# The admin event stream: how a test observes a server's transitions


class AdminEvents:
    """``GET /api/v1/events`` read in the background since it was opened: every event as (name, data).

    The gateway subscribes before it answers the request, so every transition after ``admin_events`` returned
    is here, however short it was: a test opens the stream before the action and then waits for the event,
    instead of polling a state that may have come and gone between two polls.
    """

    def __init__(self, gw: Gateway, http: httpx2.AsyncClient) -> None:
        self.gw = gw
        self.http = http
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.ids: list[int | None] = []  # each event's `id:` (its sequence number), in step with ``events``
        self.ended = False
        self._arrived = anyio.Event()

    async def _read(self, response: httpx2.Response) -> None:
        name = "message"
        event_id: int | None = None
        try:
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("id:"):
                    event_id = int(line[3:].strip())
                elif line.startswith("data:"):
                    self.ids.append(event_id)
                    event_id = None
                    self.events.append((name, json.loads(line[5:].strip())))
                    self._arrived.set()
                    self._arrived = anyio.Event()
        except httpx2.HTTPError:
            pass  # the gateway went away: the stream has ended
        finally:
            self.ended = True
            self._arrived.set()

    def mark(self) -> int:
        """The index the next event will have: pass it as ``after`` to wait only for what comes next."""
        return len(self.events)

    async def wait_for(
        self, predicate: Callable[[str, dict[str, Any]], bool], timeout: float, *, after: int = 0, what: str = "event"
    ) -> int:
        """The index of the first event from ``after`` on for which ``predicate(name, data)`` holds."""
        try:
            with anyio.fail_after(timeout):
                while True:
                    arrived = self._arrived
                    for index in range(after, len(self.events)):
                        if predicate(*self.events[index]):
                            return index
                    if self.ended:
                        raise AssertionError(f"the event stream ended before {what}; events: {self.summary(after)}")
                    await arrived.wait()
        except TimeoutError:
            raise AssertionError(f"no {what} within {timeout:.0f} s; events: {self.summary(after)}") from None

    async def wait_for_state(self, server_id: str, state: str, timeout: float, *, after: int = 0) -> dict[str, Any]:
        """The server's view (as ``GET /api/v1/servers/{id}`` has it) in its first ``server.state`` event with
        ``state`` from index ``after`` on."""
        index = await self.wait_for(
            lambda name, data: name == "server.state" and _server_is(data, server_id, state),
            timeout,
            after=after,
            what=f"server.state {server_id}:{state}",
        )
        return self.events[index][1]["server"]

    def states(self, server_id: str, *, after: int = 0) -> list[str]:
        """The states ``server_id`` went through, in order, from index ``after`` on."""
        return [
            data["server"]["state"]
            for name, data in self.events[after:]
            if name == "server.state" and data["server"]["id"] == server_id
        ]

    async def server(self, server_id: str) -> dict[str, Any]:
        """The server's view now (``GET /api/v1/servers/{id}``)."""
        response = await self.http.get(f"{self.gw.base}/api/v1/servers/{server_id}")
        assert response.status_code == 200, f"GET /api/v1/servers/{server_id}: {response.status_code} {response.text}"
        return response.json()

    async def reach_state(self, server_id: str, state: str, timeout: float) -> dict[str, Any]:
        """The server's view once it is in ``state``: now, or at an event since the stream opened. Only for a
        state that is reached after the stream opened or lasts: a transient state must be awaited with
        ``wait_for_state`` on a stream opened before the action that causes it."""
        now = await self.server(server_id)
        if now["state"] == state:
            return now
        return await self.wait_for_state(server_id, state, timeout)

    def summary(self, after: int = 0) -> list[str]:
        out = []
        for name, data in self.events[after:]:
            server = data.get("server")
            out.append(f"{name} {server['id']}:{server['state']}" if isinstance(server, dict) else f"{name} {data}")
        return out


def _server_is(data: dict[str, Any], server_id: str, state: str) -> bool:
    server = data.get("server")
    return isinstance(server, dict) and server.get("id") == server_id and server.get("state") == state


@asynccontextmanager
async def admin_events(
    gw: Gateway, *, token: str | None = None, timeout: float = 10.0, last_event_id: int | None = None
) -> AsyncIterator[AdminEvents]:
    """Open ``GET /api/v1/events`` on ``gw`` (with the admin ``token``, if it has one; resuming after
    ``last_event_id``, if given) and collect its events in the background for the block."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    resume = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(timeout, read=None)) as http:
        async with http.stream("GET", f"{gw.base}/api/v1/events", headers=resume) as response:
            assert response.status_code == 200, f"GET /api/v1/events answered {response.status_code}"
            events = AdminEvents(gw, http)
            async with anyio.create_task_group() as tg:
                tg.start_soon(events._read, response)
                yield events
                tg.cancel_scope.cancel()


async def wait_for_server_state(
    gw: Gateway, server_id: str, state: str, timeout: float, *, token: str | None = None
) -> dict[str, Any]:
    """The server's admin view once it is in ``state``, observed on the event stream (subscribed first, then
    the current state read, so a change in between is not missed). Not for a transient state caused by an
    earlier action: open ``admin_events`` before that action instead."""
    async with admin_events(gw, token=token) as events:
        return await events.reach_state(server_id, state, timeout)


# ---------------------------------------------------------------------------
# MCP sessions through the official SDK client


@dataclass(eq=False)
class McpSession:
    """A connected SDK ``Client`` plus everything the server sent it unasked."""

    client: Client
    mode: str
    label: str = "session"
    notifications: list[types.ServerNotification] = field(default_factory=list)
    transport_errors: list[Exception] = field(default_factory=list)
    subscription_errors: list[BaseException] = field(default_factory=list)
    get_stream_status: int | None = None  # legacy: status of the standalone GET stream
    session_ids_minted: set[str] = field(default_factory=set)  # Mcp-Session-Id headers the gateway answered with
    session_ids_sent: set[str] = field(default_factory=set)  # Mcp-Session-Id headers the client sent
    _arrived: anyio.Event = field(default_factory=anyio.Event)

    @property
    def protocol_version(self) -> str:
        return self.client.protocol_version

    @property
    def is_modern(self) -> bool:
        return self.protocol_version == MODERN_VERSION

    # -- notifications

    async def _on_message(self, message: types.ServerNotification | Exception) -> None:
        if isinstance(message, Exception):
            self.transport_errors.append(message)
        else:
            self.notifications.append(message)
        self._arrived.set()
        self._arrived = anyio.Event()

    def methods(self) -> list[str]:
        return [n.method for n in self.notifications]

    def received(self, method: str) -> list[types.ServerNotification]:
        return [n for n in self.notifications if n.method == method]

    async def wait_for_notification(
        self,
        method: str,
        timeout: float = 10.0,
        *,
        after: int = 0,
        predicate: Callable[[types.ServerNotification], bool] | None = None,
    ) -> types.ServerNotification:
        """Wait for a notification ``method`` among those received from index ``after`` on."""
        try:
            with anyio.fail_after(timeout):
                while True:
                    arrived = self._arrived
                    for n in self.notifications[after:]:
                        if n.method == method and (predicate is None or predicate(n)):
                            return n
                    await arrived.wait()
        except TimeoutError:
            raise TimeoutError(
                f"{self.label}: no {method} within {timeout:.1f}s; received: {self.methods()[after:]}"
                f"; transport errors: {self.transport_errors}; subscription errors: {self.subscription_errors}"
            ) from None

    # -- catalog helpers (always fresh: the client's response cache is off)

    async def tools(self, timeout: float = REQUEST_TIMEOUT) -> list[types.Tool]:
        out: list[types.Tool] = []
        cursor = None
        with anyio.fail_after(timeout):
            for _ in range(100):
                page = await self.client.list_tools(cursor=cursor)
                out.extend(page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    break
        return out

    async def tool_names(self, timeout: float = REQUEST_TIMEOUT) -> set[str]:
        return {t.name for t in await self.tools(timeout)}

    async def tool(self, name: str) -> types.Tool:
        for t in await self.tools():
            if t.name == name:
                return t
        raise AssertionError(f"tool {name!r} is not listed")

    async def wait_for_tools(self, names: Iterable[str], timeout: float = 30.0) -> set[str]:
        """Poll tools/list until every name in ``names`` is listed; return the listed names."""
        wanted = set(names)
        last: set[str] = set()

        async def listed() -> set[str] | None:
            nonlocal last
            last = await self.tool_names()
            return last if wanted <= last else None

        try:
            return await await_until(listed, timeout, interval=0.25, what=f"tools {sorted(wanted)}")
        except TimeoutError:
            raise TimeoutError(
                f"tools {sorted(wanted - last)} not listed within {timeout}s; listed: {sorted(last)}"
            ) from None


@asynccontextmanager
async def mcp_session(
    url: str,
    *,
    mode: str = "auto",
    subscribe: bool = False,
    headers: Mapping[str, str] | None = None,
    timeout: float = REQUEST_TIMEOUT,
    label: str = "session",
    **client_options: Any,
) -> AsyncIterator[McpSession]:
    """Connect the official SDK client (Streamable HTTP) to ``url``; ``client_options`` go to ``Client`` (the
    sampling, elicitation and roots callbacks).

    ``label`` names the session in failure messages.

    ``mode``: ``"auto"`` (the SDK default: probe ``server/discover``, fall back
    to ``initialize``) or ``"legacy"`` (``initialize`` only).

    ``subscribe``: make sure change notifications can reach the session before
    returning. Handshake era: wait until the standalone GET stream is open
    (the SDK opens it after ``notifications/initialized``). 2026-07-28: open a
    ``subscriptions/listen`` stream for tools, prompts and resources list
    changes; its frames reach ``notifications`` like any other.

    Progress: pass ``progress_callback=`` to ``session.client.call_tool``;
    progress notifications also land in ``session.notifications``.
    """
    get_opened = anyio.Event()
    session_ref: list[McpSession] = []

    async def on_response(response: httpx2.Response) -> None:
        if session_ref:
            if minted := response.headers.get("mcp-session-id"):
                session_ref[0].session_ids_minted.add(minted)
            if sent := response.request.headers.get("mcp-session-id"):
                session_ref[0].session_ids_sent.add(sent)
        if response.request.method == "GET" and session_ref:
            session_ref[0].get_stream_status = response.status_code
            get_opened.set()

    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers=dict(headers or {}),
                timeout=httpx2.Timeout(timeout, read=300.0),
                event_hooks={"response": [on_response]},
            )
        )
        session = McpSession(client=None, mode=mode, label=label)  # type: ignore[arg-type]
        session_ref.append(session)
        client = Client(
            streamable_http_client(url, http_client=http),
            mode=mode,
            message_handler=session._on_message,
            read_timeout_seconds=timeout,
            cache=None,
            **client_options,
        )
        session.client = client
        # No fail_after around this: the client opens task groups that outlive the call, and a
        # cancel scope must not close around them. The handshake is bounded by read_timeout_seconds.
        await stack.enter_async_context(client)
        if subscribe:
            if session.is_modern:
                await _listen_in_background(session, stack, timeout)
            else:
                try:
                    with anyio.fail_after(10):
                        await get_opened.wait()
                except TimeoutError:
                    raise AssertionError(f"{label}: the standalone GET stream did not open within 10 s") from None
                assert session.get_stream_status == 200, (
                    f"{label}: the standalone GET stream was refused: HTTP {session.get_stream_status}"
                )
        yield session


async def _listen_in_background(session: McpSession, stack: AsyncExitStack, timeout: float) -> None:
    tg = await stack.enter_async_context(anyio.create_task_group())
    stack.callback(tg.cancel_scope.cancel)
    ready = anyio.Event()
    failure: list[BaseException] = []

    async def drive() -> None:
        try:
            async with session.client.listen(
                tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
            ) as sub:
                ready.set()
                async for _event in sub:  # the frames are teed to the message handler too
                    pass
        except SubscriptionLost as e:
            session.subscription_errors.append(e)
        except Exception as e:
            failure.append(e)
            session.subscription_errors.append(e)
        finally:
            ready.set()

    tg.start_soon(drive)
    with anyio.fail_after(timeout):
        await ready.wait()
    if failure:
        raise AssertionError(f"{session.label}: subscriptions/listen failed: {failure[0]!r}") from failure[0]


# ---------------------------------------------------------------------------
# Raw HTTP on the MCP endpoint

JSON_AND_SSE = "application/json, text/event-stream"


def parse_sse(text: str) -> list[dict[str, Any]]:
    """The JSON messages in an SSE body (comments and empty priming events skipped)."""
    messages = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip(" ") if line.startswith("data:") else None for line in block.split("\n")]
        payload = "\n".join(d for d in data if d is not None)
        if payload.strip():
            messages.append(json.loads(payload))
    return messages


def messages_in(response: httpx2.Response) -> list[dict[str, Any]]:
    """The JSON-RPC messages in a response body, whether it is JSON or SSE."""
    ctype = response.headers.get("content-type", "").lower()
    if ctype.startswith("text/event-stream"):
        return parse_sse(response.text)
    if not response.content:
        return []
    body = response.json()
    return body if isinstance(body, list) else [body]


def answer_to(response: httpx2.Response, request_id: Any) -> dict[str, Any]:
    """The response (result or error) to ``request_id`` in ``response``'s body."""
    found = [m for m in messages_in(response) if "id" in m and m["id"] == request_id and "method" not in m]
    assert found, (
        f"no answer to id {request_id!r} in HTTP {response.status_code} "
        f"({response.headers.get('content-type')}): {response.text[:500]}"
    )
    return found[0]


@dataclass
class RawSession:
    raw: RawMcp
    session_id: str
    protocol_version: str
    initialize_response: httpx2.Response

    def headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        h = {"Mcp-Session-Id": self.session_id, "MCP-Protocol-Version": self.protocol_version}
        h.update(extra or {})
        return h

    async def post(self, body: Any, headers: Mapping[str, str] | None = None) -> httpx2.Response:
        return await self.raw.post(body, headers=self.headers(headers))

    async def request(self, method: str, params: Any = None, id: Any = 1) -> dict[str, Any]:
        """Send one request in this session; return its JSON-RPC answer (result or error)."""
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            body["params"] = params
        return answer_to(await self.post(body), id)

    async def notify(self, method: str, params: Any = None) -> httpx2.Response:
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        return await self.post(body)

    async def delete(self) -> httpx2.Response:
        return await self.raw.http.delete(self.raw.url, headers={**self.raw.base_headers, **self.headers()})


class RawMcp:
    """Hand-made HTTP requests to an MCP endpoint (handshake era unless told otherwise)."""

    def __init__(self, url: str, http: httpx2.AsyncClient):
        self.url = url
        self.http = http
        self.base_headers = {"Accept": JSON_AND_SSE, "Content-Type": "application/json"}

    async def post(self, body: Any, headers: Mapping[str, str] | None = None) -> httpx2.Response:
        if isinstance(body, bytes | str):
            content = body.encode() if isinstance(body, str) else body
        else:
            content = json.dumps(body).encode()
        return await self.http.post(self.url, content=content, headers={**self.base_headers, **(headers or {})})

    async def initialize(
        self, protocol_version: str = LEGACY_VERSION, client_name: str = "yrden-interop-raw"
    ) -> RawSession:
        """``initialize`` + ``notifications/initialized``; asserts the session id and the 202."""
        body = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": protocol_version,
                "capabilities": {},
                "clientInfo": {"name": client_name, "version": "1.0.0"},
            },
        }
        response = await self.post(body)
        assert response.status_code == 200, f"initialize: HTTP {response.status_code}: {response.text[:500]}"
        answer = answer_to(response, 0)
        assert "result" in answer, f"initialize failed: {answer}"
        session_id = response.headers.get("mcp-session-id")
        assert session_id, "initialize answered without an Mcp-Session-Id header"
        negotiated = answer["result"]["protocolVersion"]
        session = RawSession(self, session_id, negotiated, response)
        initialized = await session.notify("notifications/initialized")
        assert initialized.status_code == 202, (
            f"notifications/initialized: expected 202, got {initialized.status_code}: {initialized.text[:300]}"
        )
        return session


@asynccontextmanager
async def raw_mcp(url: str, timeout: float = REQUEST_TIMEOUT) -> AsyncIterator[RawMcp]:
    async with httpx2.AsyncClient(timeout=timeout) as http:
        yield RawMcp(url, http)


def text_of(result: types.CallToolResult | types.ReadResourceResult | types.GetPromptResult) -> str:
    """All text in a tool result, resource contents or prompt messages, joined."""
    parts: list[str] = []
    if isinstance(result, types.CallToolResult):
        parts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    elif isinstance(result, types.ReadResourceResult):
        parts = [c.text for c in result.contents if isinstance(c, types.TextResourceContents)]
    elif isinstance(result, types.GetPromptResult):
        parts = [m.content.text for m in result.messages if isinstance(m.content, types.TextContent)]
    return "\n".join(parts)


def sample_args_for(schema: Mapping[str, Any], values: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Arguments for every required property of a JSON schema: ``values`` first, else a plain value by type."""
    values = dict(values or {})
    props = schema.get("properties", {}) or {}
    args = {}
    for name in schema.get("required", []) or []:
        if name in values:
            args[name] = values[name]
            continue
        kind = (props.get(name) or {}).get("type")
        args[name] = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}.get(kind, "x")
    return args


def stop_quietly(pids: Iterable[int]) -> None:
    """SIGKILL whatever of ``pids`` still runs (cleanup after a gateway that left children behind)."""
    for pid in pids:
        if is_running(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
