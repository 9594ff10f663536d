"""Config validation from the command line: `yrden check-config` and `yrden serve` on bad files."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness import PYTHON, SAMPLE_SERVER, clean_env, free_port

TIMEOUT = 30


def run(yrden: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(yrden), *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )


def write(tmp_path: Path, config, name: str = "config.json") -> Path:
    path = tmp_path / name
    path.write_text(config if isinstance(config, str) else json.dumps(config))
    return path


def output(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout + proc.stderr


GOOD = {"mcpServers": {"sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]}}}

BAD = {
    "unknown top-level key": ({"mcpServers": {}, "mcpServres": {}}, ["mcpServres"]),
    "unknown server key": (
        {"mcpServers": {"a": {"command": "true", "comand": "x"}}},
        ["mcpServers.a.comand"],
    ),
    "bad server id": ({"mcpServers": {"Bad Id!": {"command": "true"}}}, ["Bad Id!"]),
    "neither command nor url": ({"mcpServers": {"x": {"args": ["a"]}}}, ["mcpServers.x"]),
    "wrong type": ({"mcpServers": {"a": {"command": 42}}}, ["mcpServers.a.command"]),
}


def test_good_config_passes(yrden, tmp_path):
    proc = run(yrden, "check-config", str(write(tmp_path, GOOD)), cwd=tmp_path)
    assert proc.returncode == 0, output(proc)


@pytest.mark.parametrize("case", list(BAD))
def test_bad_config_exits_2_and_names_the_field(yrden, tmp_path, case):
    config, paths = BAD[case]
    proc = run(yrden, "check-config", str(write(tmp_path, config)), cwd=tmp_path)
    assert proc.returncode == 2, f"exit {proc.returncode}\n{output(proc)}"
    for path in paths:
        assert path in output(proc), f"the message does not name {path!r}:\n{output(proc)}"


def test_every_problem_is_reported_at_once(yrden, tmp_path):
    config = {
        "mcpServers": {"Bad Id!": {"command": "true"}, "x": {}, "ok": {"command": "true"}},
        "unknownKey": True,
    }
    proc = run(yrden, "check-config", str(write(tmp_path, config)), cwd=tmp_path)
    assert proc.returncode == 2, output(proc)
    for needle in ("Bad Id!", "mcpServers.x", "unknownKey"):
        assert needle in output(proc), f"{needle!r} missing from:\n{output(proc)}"


def test_invalid_json_exits_2(yrden, tmp_path):
    proc = run(yrden, "check-config", str(write(tmp_path, '{"mcpServers": {')), cwd=tmp_path)
    assert proc.returncode == 2, output(proc)
    assert output(proc).strip(), "no message for a file that is not JSON"


def test_serve_refuses_a_bad_config(yrden, tmp_path):
    bad = write(tmp_path, {"mcpServers": {"x": {}}})
    port = free_port()
    proc = run(yrden, "serve", "--config", str(bad), "--listen", f"127.0.0.1:{port}", cwd=tmp_path)
    assert proc.returncode == 2, f"exit {proc.returncode}\n{output(proc)}"
    assert "mcpServers.x" in output(proc), output(proc)


def test_unknown_subcommand_is_usage_error(yrden, tmp_path):
    proc = run(yrden, "no-such-command", cwd=tmp_path)
    assert proc.returncode == 2, output(proc)
