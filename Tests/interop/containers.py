"""The container engine for the tests of the image (test_container.py).

The image is built once per run by ``deploy/image.sh`` (what ``make image`` runs) from the binary under test
(``$YRDEN_BIN``, the debug build in ``make test``), so no test compiles Swift. The script also says how to run
containers on this machine (``CONTAINERS_CONF`` when the sandbox needs its runtime wrapper); every engine
command here runs with that environment.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
import pytest

import harness

IMAGE_SCRIPT = harness.REPO_ROOT / "deploy" / "image.sh"
NO_ENGINE = 3  # deploy/image.sh's exit status when no container engine can run here
BUILD_TIMEOUT = 600.0  # a first build debootstraps the base image (about a minute) and installs its packages
COMMAND_TIMEOUT = 60.0
CONTAINER_PORT = 8750
ADMIN_TOKEN = "container-test-admin-token-0123456789abcdef"


@dataclass(frozen=True)
class Engine:
    """podman (or docker) with the environment its commands need here."""

    name: str
    env: dict[str, str]

    def command(self, *args: str) -> list[str]:
        return [self.name, *args]

    def run(
        self, *args: str, check: bool = True, timeout: float = COMMAND_TIMEOUT, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            self.command(*args), env=self.env, capture_output=True, text=True, timeout=timeout, input=input
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"{self.name} {' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-4000:]}")
        return proc


@dataclass
class Image:
    engine: Engine
    tag: str
    build_seconds: float
    build_log: str


def build_image(tag: str, binary: Path) -> Image:
    """Builds ``tag`` from ``binary`` with deploy/image.sh; skips only when no container engine can run here."""
    started = time.monotonic()
    proc = subprocess.run(
        [str(IMAGE_SCRIPT), "build", "--binary", str(binary), "--tag", tag],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        env=harness.clean_env(),
    )
    if proc.returncode == NO_ENGINE:
        pytest.skip(f"no container engine can run here: {proc.stderr.strip()}")
    if proc.returncode != 0:
        pytest.fail(f"deploy/image.sh build exited {proc.returncode}:\n{proc.stderr[-4000:]}", pytrace=False)
    said = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    env = harness.clean_env()
    if "CONTAINERS_CONF" in said:
        env["CONTAINERS_CONF"] = said["CONTAINERS_CONF"]
    return Image(Engine(said["engine"], env), tag, time.monotonic() - started, proc.stderr)


@dataclass
class Container:
    """A detached container, removed (with its anonymous volumes) by ``remove``."""

    engine: Engine
    id: str
    port: int | None
    started_at: float  # time.monotonic() just before `run` was invoked
    host: str = "127.0.0.1"  # where the test reaches it: the published loopback port, or a pod's address
    removed: bool = field(default=False)

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    def inspect(self, template: str) -> str:
        return self.engine.run("inspect", "--format", template, self.id).stdout.strip()

    def running(self) -> bool:
        return self.inspect("{{.State.Running}}") == "true"

    def host_pid(self) -> int:
        """The host's pid of the container's first process (the init process with --init)."""
        return int(self.inspect("{{.State.Pid}}"))

    def logs(self) -> str:
        proc = self.engine.run("logs", self.id, check=False)
        return proc.stdout + proc.stderr

    def exec(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.engine.run("exec", self.id, *args, check=check)

    def wait_ready(self, timeout: float = 30.0) -> float:
        """Seconds from ``run`` until ``GET /readyz`` answered 200; fails with the log if the container ends or
        the deadline passes first. Readiness is a lasting state, so asking until it holds is a fair wait."""
        deadline = time.monotonic() + timeout
        last = "no answer"
        checked_alive_at = 0.0
        with httpx2.Client(timeout=2.0) as http:
            while time.monotonic() < deadline:
                try:
                    response = http.get(f"{self.base}/readyz")
                    if response.status_code == 200:
                        return time.monotonic() - self.started_at
                    last = f"HTTP {response.status_code}: {response.text[:300]}"
                except httpx2.TransportError as e:
                    last = repr(e)
                if time.monotonic() - checked_alive_at > 1.0:
                    checked_alive_at = time.monotonic()
                    if not self.running():
                        raise AssertionError(f"the container ended before it was ready:\n{self.logs()[-4000:]}")
                time.sleep(0.05)
        raise AssertionError(f"/readyz not 200 within {timeout} s ({last}):\n{self.logs()[-4000:]}")

    def wait_exit(self, timeout: float) -> int:
        """The container's exit status once it has ended (``wait``), within ``timeout`` seconds."""
        proc = self.engine.run("wait", self.id, timeout=timeout)
        return int(proc.stdout.strip().splitlines()[-1])

    def remove(self) -> None:
        if not self.removed:
            self.engine.run("rm", "-f", "-v", self.id, check=False)
            self.removed = True


def run_detached(
    engine: Engine,
    image: str,
    *,
    options: Sequence[str] = (),
    args: Sequence[str] = (),
    publish: bool = True,
    env: dict[str, str] | None = None,
) -> Container:
    """``run -d --init`` of ``image`` with the admin token set and port 8750 published on a free loopback port."""
    port = harness.free_port() if publish else None
    argv = ["run", "-d", "--init", "-e", f"YRDEN_ADMIN_TOKEN={ADMIN_TOKEN}"]
    for key, value in (env or {}).items():
        argv += ["-e", f"{key}={value}"]
    if port is not None:
        argv += ["-p", f"127.0.0.1:{port}:{CONTAINER_PORT}"]
    argv += [*options, image, *args]
    started = time.monotonic()
    proc = engine.run(*argv)
    return Container(engine, proc.stdout.strip().splitlines()[-1], port, started)


def host_processes_of(container: Container) -> list[harness.ProcInfo]:
    """Every process of the container as the host sees it: its first process and all descendants."""
    first = harness.proc_info(container.host_pid())
    return ([first] if first else []) + harness.descendants_of(container.host_pid())


def pidfd(pid: int) -> int:
    """A descriptor that becomes readable when ``pid`` (any process on the host, not only a child) exits."""
    return os.pidfd_open(pid)
