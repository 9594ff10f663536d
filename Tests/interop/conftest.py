"""Fixtures for the Yrden interop tests: the gateway binary, gateway processes, configs.

The helpers themselves live in ``harness.py`` so test modules can import them.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

import harness
from harness import Gateway, standard_config, start_gateway

LOG_TAIL_CHARS = 20_000
STARTED_BY_TEST = pytest.StashKey[list[Gateway]]()


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def yrden() -> Path:
    """The gateway binary (``$YRDEN_BIN``, default ``<repo>/.build/debug/yrden``)."""
    path = harness.yrden_bin()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"no yrden binary at {path}: build it (`swift build`) or set YRDEN_BIN", pytrace=False)
    return path


@pytest.fixture
def std_config(yrden: Path) -> dict[str, Any]:
    """demo (built-in), time (mcp-server-time), sample (servers/sample_server.py)."""
    return standard_config(yrden)


GatewayFactory = Callable[..., Gateway]


@pytest.fixture
def gateway(yrden: Path, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[GatewayFactory]:
    """Factory: ``gateway(config_dict) -> Gateway``, started and ready (``GET /readyz`` is 200).

    Each gateway runs in its own directory under the test's tmp dir. At
    teardown every gateway still running gets SIGTERM, up to 15 s, then
    SIGKILL; upstream processes it left behind are killed too.
    """
    started: list[Gateway] = []
    request.node.stash[STARTED_BY_TEST] = started

    def factory(config: Mapping[str, Any] | str, *, extra_args: tuple[str, ...] = (), env=None) -> Gateway:
        workdir = tmp_path / f"gateway{len(started)}"
        gw = start_gateway(yrden, config, workdir, extra_args=extra_args, env=env)
        started.append(gw)
        return gw

    yield factory
    _stop_all(started)


@pytest.fixture(scope="module")
def shared_gateway(yrden: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    """One gateway with the standard config for a whole module of read-only tests."""
    gw = start_gateway(yrden, standard_config(yrden), tmp_path_factory.mktemp("shared-gateway"))
    yield gw
    _stop_all([gw])


def _stop_all(gateways: list[Gateway]) -> None:
    problems = []
    for gw in gateways:
        gw.stop()
        harness.stop_quietly(gw.children_at_stop)  # whatever the gateway left behind
        if gw.killed:
            warnings.warn(f"yrden (pid {gw.pid}) ignored SIGTERM for 15 s and was killed", stacklevel=1)
        if gw.proc.returncode is None:
            problems.append(f"yrden (pid {gw.pid}) did not exit")
    assert not problems, "; ".join(problems)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]):
    """On failure, show the log of every gateway the test started, and of every one still running."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    shown: list[Gateway] = []
    for gw in [*item.stash.get(STARTED_BY_TEST, []), *harness.LIVE_GATEWAYS]:
        if any(gw is seen for seen in shown):
            continue
        shown.append(gw)
        text = gw.log_text()
        if len(text) > LOG_TAIL_CHARS:
            text = "[...]\n" + text[-LOG_TAIL_CHARS:]
        report.sections.append((f"yrden log (pid {gw.pid}, {gw.log_path})", text or "(empty)"))


@pytest.fixture
def http_asking(tmp_path: Path) -> Iterator[str]:
    """``servers/asking_server.py`` over Streamable HTTP: its MCP URL."""
    with harness.asking_over_http(tmp_path / "asking.log") as url:
        yield url


@pytest.fixture
def http_modern_only(tmp_path: Path) -> Iterator[str]:
    """``servers/asking_server.py`` over Streamable HTTP as a 2026-07-28-only server: its MCP URL."""
    with harness.asking_over_http(tmp_path / "asking-modern.log", "--modern-only") as url:
        yield url
