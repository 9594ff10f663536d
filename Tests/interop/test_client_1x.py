"""A host built on the official Python SDK 1.x (handshake era only) uses the gateway in front of upstreams
that the gateway speaks 2026-07-28 to: their tools, resources and prompts, elicitation, sampling and roots
turned into requests to it (the bridge), and log messages at its level.

The 1.x SDK lives in its own venv (``.venv-1x``, from ``requirements-1x.txt``, which ``make test`` installs);
the client is ``clients/client_1x.py``, run as a process that prints what it saw.
"""

from __future__ import annotations

import json
import subprocess

import httpx2
import pytest

from harness import ASKING_SERVER, INTEROP_DIR, PYTHON, REPO_ROOT, SAMPLE_SERVER, await_until, clean_env

VENV_1X = REPO_ROOT / ".venv-1x" / "bin" / "python"
CLIENT_1X = INTEROP_DIR / "clients" / "client_1x.py"


@pytest.mark.skipif(not VENV_1X.exists(), reason="make test installs .venv-1x (requirements-1x.txt)")
async def test_a_1x_host_uses_modern_upstreams_through_the_gateway(gateway):
    gw = gateway(
        {
            "mcpServers": {
                "sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]},
                "asking": {"command": PYTHON, "args": [str(ASKING_SERVER)]},
            }
        }
    )

    async def both_modern() -> bool | None:
        servers = httpx2.get(f"{gw.base}/api/v1/servers", timeout=10).json()["servers"]
        return True if all(s["era"] == "modern" for s in servers) and len(servers) == 2 else None

    await await_until(both_modern, 30, what="both upstreams connected in 2026-07-28")
    run = subprocess.run(
        [str(VENV_1X), str(CLIENT_1X), gw.url], capture_output=True, text=True, timeout=120, env=clean_env()
    )
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["protocolVersion"] == "2025-11-25"
    assert {"sample__greet", "asking__ask_name", "asking__where"} <= set(seen["tools"])
    assert seen["greet"] == "Hello, 1.x!"
    assert seen["ask_name"] == "Hello, Ada!"
    assert seen["ask_model"] == "the model said: six times seven is 42"
    assert seen["list_roots"] == "file:///work/one-x"
    assert seen["readme"] == "Sample server for the Yrden interop tests.\n"
    assert "abc" in seen["prompt"]
    assert [(m["level"], m["data"], m["logger"]) for m in seen["logs"]] == [
        ("info", "info line", "asking/lines"),
        ("warning", "warning line", "asking/lines"),
    ]
