"""What a flood of distinct, well-formed JWTs with bad signatures costs the gateway's event loop: a program, not a
test (``test_resource_server_hardening.py`` asserts what a good client sees during such a flood).

``python token_flood.py --yrden PATH [--count N] [--mode forged|garbage]`` starts ``auth_server.py`` and a gateway
with ``gateway.auth``, sends N requests (16 at a time) each with a token not seen before (``forged``: the
issuer's key id and claims, the signature of another key; ``garbage``: not a JWT, the baseline of a 401), and
prints the CPU the loop thread (``yrden-reactor``) and the whole process spent per request, and how many of the
loop's 100 ms ticks ran late during the flood (``yrden_event_loop_lag_seconds``). The loop thread's CPU includes
its polling before it sleeps (up to 50 µs after each pass), so compare runs with each other, not with zero.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import subprocess
import tempfile
import time
from pathlib import Path

import httpx2

import loop_lag
from harness import PYTHON, clean_env, free_port, start_gateway
from test_resource_server_hardening import AUTH_SERVER, forged_tokens, initialize


def thread_cpu(pid: int, name: str) -> float:
    """Seconds of CPU the threads of ``pid`` named ``name`` used."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            if open(f"/proc/{pid}/task/{tid}/comm").read().strip() != name:
                continue
            fields = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except FileNotFoundError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def flood(binary: str, count: int, mode: str) -> None:
    work = Path(tempfile.mkdtemp(prefix="token-flood-"))
    out = work / "issuer.out"
    issuer_proc = subprocess.Popen(
        [PYTHON, str(AUTH_SERVER)], stdout=open(out, "wb"), stderr=subprocess.DEVNULL, env=clean_env()
    )
    try:
        deadline = time.monotonic() + 30
        while not out.read_text().strip():
            assert issuer_proc.poll() is None and time.monotonic() < deadline, "auth_server.py did not start"
            time.sleep(0.05)
        issuer = out.read_text().strip()
        port = free_port()
        config = {
            "gateway": {"auth": {"issuer": issuer, "audience": f"http://127.0.0.1:{port}/mcp", "scopes": ["mcp"]}},
            "mcpServers": {"demo": {"command": binary, "args": ["demo-server"]}},
        }
        gw = start_gateway(Path(binary), config, work / "gw", port=port)
        try:
            template = httpx2.post(f"{issuer}/control/mint", json={"aud": f"{gw.base}/mcp", "foreign_key": True}).json()["token"]
            tokens = forged_tokens(template) if mode == "forged" else iter(lambda: "garbage-" + os.urandom(8).hex(), None)
            async with httpx2.AsyncClient(timeout=30, limits=httpx2.Limits(max_connections=16)) as http:
                await initialize(http, gw, next(tokens))  # the key set fetched before the clock starts
                lag_before = loop_lag.lag_buckets((await http.get(f"{gw.base}/metrics")).text) or {}
                loop_before, process_before, started = thread_cpu(gw.pid, "yrden-reactor"), process_cpu(gw.pid), time.monotonic()
                statuses: dict[int, int] = {}
                left = [count]

                async def worker() -> None:
                    while left[0] > 0:
                        left[0] -= 1
                        answer = await initialize(http, gw, next(tokens))
                        statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1

                await asyncio.gather(*[worker() for _ in range(16)])
                seconds = time.monotonic() - started
                loop_spent, process_spent = thread_cpu(gw.pid, "yrden-reactor") - loop_before, process_cpu(gw.pid) - process_before
                lag_after = loop_lag.lag_buckets((await http.get(f"{gw.base}/metrics")).text) or {}
        finally:
            gw.stop()
    finally:
        issuer_proc.terminate()
        issuer_proc.wait(timeout=10)
    ticks = {le: lag_after.get(le, 0) - lag_before.get(le, 0) for le in lag_after}
    total = ticks.get(math.inf, 0)
    late = ", ".join(f"> {le * 1000:g} ms: {total - ticks[le]}" for le in (0.001, 0.005, 0.02, 0.1) if le in ticks)
    print(f"{binary} ({mode}): {count} tokens in {seconds:.2f} s, answers {statuses}")
    print(f"  CPU per request: loop thread {1e6 * loop_spent / count:.0f} µs, process {1e6 * process_spent / count:.0f} µs")
    print(f"  loop ticks during the flood: {total} ({late})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--yrden", required=True)
    parser.add_argument("--count", type=int, default=6000)
    parser.add_argument("--mode", choices=["forged", "garbage"], default="forged")
    args = parser.parse_args()
    asyncio.run(flood(args.yrden, args.count, args.mode))


if __name__ == "__main__":
    main()
