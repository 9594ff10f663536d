"""A gateway whose stderr nobody reads keeps serving.

Log lines are written by a thread of their own from a bounded queue: when the reader of stderr stops (a log
collector that hangs, a terminal on hold), lines are dropped and counted instead of stopping the event loop that
serves every client, which a write to the full pipe from the loop did.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx2

from harness import clean_env, free_port, wait_until

# 10,000 lines of 100 characters on the upstream's stderr, each logged by the gateway at debug level: more
# than the gateway's 4,096-line log queue holds, for a pipe of 64 KiB.
CHATTY = "head -c 1000000 /dev/zero | tr '\\0' x | fold -w 100 >&2; exec \"$0\" demo-server"


def test_a_stderr_nobody_reads_does_not_stop_the_gateway(yrden: Path, tmp_path: Path) -> None:
    config = tmp_path / "yrden.json"
    config.write_text(json.dumps({"mcpServers": {"chatty": {"command": "sh", "args": ["-c", CHATTY, str(yrden)]}}}))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    gateway = subprocess.Popen(
        [yrden, "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}", "--data-dir", str(tmp_path / "data"),
         "--log-level", "debug"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,  # never read
        env=clean_env(),
    )
    try:
        with httpx2.Client(timeout=5.0) as http:
            def connected() -> bool:
                try:
                    return http.get(f"{base}/api/v1/servers/chatty").json()["state"] == "connected"
                except httpx2.HTTPError:
                    return False

            wait_until(connected, 30, "the chatty server connected")
            # Every line of its stderr has been read and logged by now (its stderr ended before the exec).
            logs = http.get(f"{base}/api/v1/logs", params={"server": "chatty", "limit": 1000}).json()["entries"]
            assert sum(1 for e in logs if e.get("event") == "stderr") >= 400, len(logs)  # the ring keeps 500
            for _ in range(20):
                assert http.get(f"{base}/healthz").status_code == 200
            dropped = [line for line in http.get(f"{base}/metrics").text.splitlines()
                       if line.startswith("yrden_log_lines_dropped_total")]
            assert dropped and float(dropped[0].rsplit(" ", 1)[1]) > 0, dropped
    finally:
        gateway.terminate()
        try:
            gateway.wait(timeout=30)
        except subprocess.TimeoutExpired:
            gateway.kill()
            gateway.wait()
