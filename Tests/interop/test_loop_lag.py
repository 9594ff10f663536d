"""The event loop keeps serving while an operator does the heaviest things the gateway offers (issue 26).

One thread serves every client and every stdio child, so work an operator's action runs there stalls all of
them. ``loop_lag.py`` drives the heavy paths (5,000 tools added, a profile of 100 patterns, 2,000 definitions
changing and 2,000 approvals from 8 clients, 10,000 tools churning under 20 profiles, unlisted reads over
100,000 resources, app pages calling tools) while a prober process times ``/healthz`` and a call to another
server. Speed is measured by ``make bench`` (``Benchmarks/loop_lag.sh``, against the issue's budget of 100 ms);
here the ceiling is one that only a loop frozen for a second breaks, so a loaded machine cannot fail it, and
the figures are printed (``pytest -s``) for whoever reads the run.
"""

from __future__ import annotations

import math
import re

import httpx2
import pytest

import loop_lag
from harness import PYTHON, await_until
from loop_lag import CATALOG_SERVER, LAG_METRIC

CEILING_SECONDS = 1.0


# Seven paths of at most 60 s each when the gateway is slow; a minute or two in all when it is not.
# Its lag ceiling is measured with no other test loading the machine.
@pytest.mark.alone
@pytest.mark.timeout(600)
async def test_the_loop_keeps_serving_through_the_heavy_operator_paths(gateway, yrden, tmp_path):
    report = await loop_lag.run(gateway, tmp_path, loop_lag.QUICK, str(yrden))
    print("\n" + report.text())
    unfinished = [f"{p.name}: {p.error}" for p in report.paths if not p.finished]
    assert not unfinished, f"paths that did not complete: {unfinished}\n{report.text()}"
    whole = report.all
    assert whole.healthz.seconds and whole.call.seconds, "the prober measured nothing"
    assert whole.healthz.failed == 0 and whole.call.failed == 0, report.text()
    stalls = {
        p.name: (loop_lag.ms(p.healthz.worst), loop_lag.ms(p.call.worst))
        for p in report.paths
        if (p.healthz.worst or 0) > CEILING_SECONDS or (p.call.worst or 0) > CEILING_SECONDS
    }
    assert not stalls, f"/healthz or the other server's call waited over {CEILING_SECONDS:g} s (ms): {stalls}"
    # The loop kept ticking: at one tick per 100 ms, a run this long that counted fewer than a tenth of its
    # ticks spent most of its time frozen.
    expected_ticks = (whole.end - whole.start) / 0.1
    assert whole.lag_ticks is not None and whole.lag_ticks >= expected_ticks / 10, (
        f"{whole.lag_ticks} lag ticks in {whole.end - whole.start:.1f} s"
    )


async def test_metrics_shows_how_late_the_loop_runs(gateway):
    gw = gateway({"mcpServers": {"other": {"command": PYTHON, "args": [str(CATALOG_SERVER)]}}})
    async with httpx2.AsyncClient(timeout=30) as http:
        text = (await http.get(f"{gw.base}/metrics")).text
        assert f"# TYPE {LAG_METRIC} histogram" in text, text[:2000]
        buckets = loop_lag.lag_buckets(text)
        assert buckets is not None
        bounds = sorted(buckets)
        # From the loop's 1 ms timer resolution to 10 s, with the budget's 20 ms and 100 ms among them.
        assert bounds[0] == 0.001 and bounds[-2] == 10.0 and bounds[-1] == math.inf, bounds
        assert {0.02, 0.1} <= set(bounds), bounds
        counts = [buckets[b] for b in bounds]
        assert counts == sorted(counts), "a histogram's buckets are cumulative"
        count = int(re.search(rf"^{LAG_METRIC}_count (\d+)$", text, re.M).group(1))
        assert count == buckets[math.inf]

        # It keeps counting: the loop ticks every 100 ms whether or not anything else happens.
        async def ticked() -> int | None:
            later = loop_lag.lag_buckets((await http.get(f"{gw.base}/metrics")).text)
            return later[math.inf] if later and later[math.inf] >= count + 5 else None

        await await_until(ticked, 30, interval=0.2, what="five more lag ticks")
