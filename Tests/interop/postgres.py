"""A throwaway PostgreSQL server for the interop tests: ``PostgresServer`` and the ``postgres`` fixture.

Each server runs in a temp directory of its own, listens on 127.0.0.1 on a free port and lets in one user,
``yrden`` (a random password, scram-sha-256 only) to one database, ``yrden``: what a team's shared store looks
like, so the gateway talks to it exactly as it would to a real one.

PostgreSQL refuses to run as root, and CI runs as root: there the server runs as the ``postgres`` user the
Debian package creates, with its data directory owned by that user (under a directory of its own in /tmp, since
pytest's tmp dirs are root's alone). As any other user it runs as that user.

Use it with ``from postgres import postgres`` in a test module (the fixture), or ``PostgresServer(tmp_path)``
directly for more than one per test. Nothing here knows the gateway.
"""

from __future__ import annotations

import atexit
import glob
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

START_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0
PSQL_TIMEOUT = 30.0

USER = "yrden"
DATABASE = "yrden"

_LIVE: list[PostgresServer] = []
"""Servers started and not yet closed: closed at exit too, so a crashed run leaves no postgres behind."""


def server_bin_dir() -> Path:
    """The newest ``/usr/lib/postgresql/<major>/bin`` that has ``postgres`` and ``initdb`` (``$YRDEN_PG_BIN``
    overrides)."""
    if env := os.environ.get("YRDEN_PG_BIN"):
        return Path(env)
    found = [Path(p) for p in glob.glob("/usr/lib/postgresql/*/bin") if (Path(p) / "postgres").is_file()]
    found = [p for p in found if (p / "initdb").is_file()]
    if not found:
        raise RuntimeError(
            "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: install the `postgresql` package "
            "(`make service-deps`) or set YRDEN_PG_BIN"
        )
    return max(found, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)


def _server_user() -> pwd.struct_passwd | None:
    """The user the server runs as when we are root (``postgres``); None when we are not root (run as us)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError("running as root, and there is no `postgres` user to run PostgreSQL as") from None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One PostgreSQL server, started (initdb, the ``yrden`` user and database) when constructed.

    ``url``, ``password``, ``port``; ``stop()`` (fast shutdown, returns once the server has exited),
    ``start()`` (same port and data, returns once it accepts ``yrden``'s connections), ``psql(sql)`` (as
    ``yrden`` over TCP, unaligned tuples only: ``-At``), ``close()`` (stop, kill whatever is left, delete the
    data). ``tmp_path`` receives the server's log (``postgres.log``).
    """

    def __init__(self, tmp_path: Path, *, settings: Mapping[str, str] | None = None) -> None:
        self.bin = server_bin_dir()
        self.log_path = Path(tmp_path) / "postgres.log"
        self.password = secrets.token_urlsafe(18)
        self.port = _free_port()
        self.settings = dict(settings or {})
        self._owner = _server_user()
        self._proc: subprocess.Popen[bytes] | None = None
        self._log_file = None
        self._user_created = False
        # The data and socket directory: in /tmp (short, for the socket path's 107-byte limit), owned by the
        # server's user, since pytest's tmp_path is mode 0700 root's when CI runs as root.
        self.root = Path(tempfile.mkdtemp(prefix="yrden-pg-"))
        self.data_dir = self.root / "data"
        if self._owner is not None:
            os.chown(self.root, self._owner.pw_uid, self._owner.pw_gid)
        _LIVE.append(self)
        try:
            self._initdb()
            self.start()
            self._create_user_and_database()
        except BaseException:
            self.close()
            raise

    # -- what a test uses

    @property
    def url(self) -> str:
        return f"postgres://{USER}:{self.password}@127.0.0.1:{self.port}/{DATABASE}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The postmaster's pid while it runs."""
        return self._proc.pid if self.running else None

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Start the server on its port; return once ``yrden`` (or, before it exists, the superuser) can run a
        query. Raises if it exits or does not accept within ``timeout`` s."""
        if self.running:
            return
        self._log_file = open(self.log_path, "ab")
        argv = [
            str(self.bin / "postgres"),
            "-D", str(self.data_dir),
            "-c", "listen_addresses=127.0.0.1",
            "-c", f"port={self.port}",
            "-c", f"unix_socket_directories={self.root}",
            "-c", "password_encryption=scram-sha-256",
            # A test's data is thrown away: no fsync (the machine's disk is shared by every test).
            "-c", "fsync=off",
            "-c", "synchronous_commit=off",
            "-c", "full_page_writes=off",
            "-c", "max_connections=200",
            *[arg for name, value in self.settings.items() for arg in ("-c", f"{name}={value}")],
        ]  # fmt: skip
        self._proc = self._popen(argv, stdout=self._log_file, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            if self._proc.poll() is not None:
                raise RuntimeError(
                    f"postgres exited with status {self._proc.returncode} while starting\n--- log ---\n"
                    + self.log_text()
                )
            if self._accepts():
                return
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"postgres did not accept connections within {timeout:.0f} s\n--- log ---\n{self.log_text()}"
                )
            time.sleep(0.05)

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """Fast shutdown (SIGINT: open sessions are ended, not waited for); return once the server has exited."""
        if self._proc is None:
            return
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGINT)
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._kill_group()
                raise RuntimeError(f"postgres did not stop within {timeout:.0f} s of a fast shutdown; killed it")
        self._close_log()

    def psql(self, sql: str, *, superuser: bool = False, timeout: float = PSQL_TIMEOUT) -> str:
        """Run ``sql`` (one or more statements) and return psql's stdout (``-At``: unaligned, tuples only, so a
        one-value query gives that value and a newline). As ``yrden`` over TCP, or with ``superuser`` as the
        cluster's owner over the socket. Raises on an SQL error, with psql's message."""
        argv = [str(self.bin / "psql"), "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql]
        if superuser:
            argv += ["-h", str(self.root), "-p", str(self.port), "-d", "postgres"]
            result = self._run(argv, timeout=timeout)
        else:
            argv += ["-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "-d", DATABASE]
            result = subprocess.run(
                argv, capture_output=True, timeout=timeout, env={**_base_env(), "PGPASSWORD": self.password}
            )
        if result.returncode != 0:
            raise RuntimeError(f"psql failed ({result.returncode}): {result.stderr.decode(errors='replace').strip()}")
        return result.stdout.decode()

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def close(self) -> None:
        """Stop the server (killing it and its backends if a fast shutdown fails) and delete its data."""
        try:
            if self.running:
                try:
                    self.stop()
                except RuntimeError:
                    pass  # stop() killed it
            self._kill_group()  # backends that outlived their postmaster, if any
        finally:
            self._close_log()
            shutil.rmtree(self.root, ignore_errors=True)
            if self in _LIVE:
                _LIVE.remove(self)

    # -- setting up

    def _initdb(self) -> None:
        """A new cluster in ``data_dir``: copied from this process's template when there is one (initdb costs a
        second a time), else made with initdb and kept as the template."""
        template = _template(self.bin, self._owner, self.log_path)
        result = subprocess.run(["cp", "-a", str(template), str(self.data_dir)], capture_output=True)
        if result.returncode != 0:
            raise RuntimeError(f"copying the initdb template failed: {result.stderr.decode(errors='replace')}")

    def _create_user_and_database(self) -> None:
        # token_urlsafe holds no quote, so it can sit in a literal as it is.
        self.psql(f"CREATE ROLE {USER} LOGIN PASSWORD '{self.password}'", superuser=True)
        self.psql(f"CREATE DATABASE {DATABASE} OWNER {USER}", superuser=True)
        self._user_created = True

    def _accepts(self) -> bool:
        """Whether the server runs queries now: as ``yrden`` once it exists, else as the superuser."""
        try:
            return self.psql("SELECT 1", superuser=not self._user_created, timeout=5).strip() == "1"
        except (RuntimeError, subprocess.TimeoutExpired):
            return False

    def _popen(self, argv: list[str], **kwargs) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, cwd=self.root, env=_base_env(), **_as_owner(self._owner), **kwargs
        )

    def _run(self, argv: list[str], *, timeout: float) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, cwd=self.root, env=_base_env(),
            **_as_owner(self._owner),
        )  # fmt: skip

    def _kill_group(self) -> None:
        """SIGKILL the postmaster and every process it forked (each backend is a session of its own, so a
        process group does not hold them: they are found by parent pid)."""
        if self._proc is None:
            return
        for pid in [self._proc.pid, *_children_of(self._proc.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def _close_log(self) -> None:
        if self._log_file is not None and not self._log_file.closed:
            self._log_file.close()


def _children_of(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
            out.append(int(entry.name))
    return out


def _base_env() -> dict[str, str]:
    """A plain environment for the server and psql: none of the caller's PG* settings, no YRDEN_* secrets."""
    keep = ("PATH", "LANG", "LC_ALL", "TZ")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    return env


def _as_owner(owner: pwd.struct_passwd | None) -> dict:
    """Popen arguments that run a child as the server's user (only when we are root)."""
    if owner is None:
        return {}
    return {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}


_TEMPLATES: dict[Path, Path] = {}


def _template(bin_dir: Path, owner: pwd.struct_passwd | None, log_path: Path) -> Path:
    """An initdb'd data directory for this process to copy (made once, deleted at exit)."""
    if (found := _TEMPLATES.get(bin_dir)) is not None and found.is_dir():
        return found
    root = Path(tempfile.mkdtemp(prefix="yrden-pg-template-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    if owner is not None:
        os.chown(root, owner.pw_uid, owner.pw_gid)
    data = root / "data"
    argv = [
        str(bin_dir / "initdb"), "-D", str(data), "--auth-local=peer", "--auth-host=scram-sha-256",
        "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions",
    ]  # fmt: skip
    result = subprocess.run(
        argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=120, cwd=root, env=_base_env(), **_as_owner(owner)
    )
    if result.returncode != 0:
        output = result.stdout + result.stderr
        log_path.write_bytes(output)
        raise RuntimeError(f"initdb failed ({result.returncode}):\n{output.decode(errors='replace')}")
    _TEMPLATES[bin_dir] = data
    return data


@atexit.register
def _close_all() -> None:
    for server in list(_LIVE):
        server.close()


@pytest.fixture
def postgres(tmp_path: Path) -> Iterator[PostgresServer]:
    """A PostgreSQL server of the test's own (see ``PostgresServer``), closed at teardown."""
    server = PostgresServer(tmp_path)
    try:
        yield server
    finally:
        server.close()
