"""`limits`: token buckets per user, per profile and per tool. One user over quota while another is not, what the
refused call is told (which limit, when to retry), 429 with Retry-After for a stateless request that is only
that call, and the refusals counted on /metrics. Rates are one token in 100 s, so no refill happens during a
test however slow the machine."""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx2
import pytest

from harness import Gateway, RawMcp, answer_to, raw_mcp, start_gateway
from test_metrics import sample
from test_stateless_era import ENVELOPE
from test_stateless_era import headers as modern_headers
from test_stateless_era import modern

ALICE = "limits-token-alice-0123456789abcdef"
BOB = "limits-token-bob-0123456789abcdef"
CAROL = "limits-token-carol-0123456789abcdef"
SLOW = {"rate": 0.01, "burst": 3}


def user_of(token: str) -> str:
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:8]


@pytest.fixture(scope="module")
def gw(yrden: Path, tmp_path_factory: pytest.TempPathFactory):
    config = {
        "gateway": {"clientTokens": [ALICE, BOB, CAROL]},
        "mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}},
        "profiles": {"ops": {"servers": ["demo"]}},
        "limits": {
            "user": SLOW,
            "users": {user_of(CAROL): {"rate": 100, "burst": 100}},
            "profiles": {"ops": {"rate": 0.01, "burst": 2}},
            "tools": {"demo__slow": {"rate": 0.01, "burst": 1}},
        },
    }
    gateway = start_gateway(yrden, config, tmp_path_factory.mktemp("limits"))
    yield gateway
    gateway.stop()


def raw_as(url: str, token: str):
    context = raw_mcp(url)

    class Authorized:
        async def __aenter__(self) -> RawMcp:
            raw = await context.__aenter__()
            raw.base_headers["Authorization"] = f"Bearer {token}"
            return raw

        async def __aexit__(self, *exc):
            return await context.__aexit__(*exc)

    return Authorized()


async def call(session, tool: str, arguments: dict, id: int) -> dict:
    return await session.request("tools/call", {"name": tool, "arguments": arguments}, id=id)


async def test_one_user_over_quota_while_another_is_not(gw: Gateway):
    async with raw_as(gw.url, ALICE) as alice_raw, raw_as(gw.url, BOB) as bob_raw:
        alice = await alice_raw.initialize()
        bob = await bob_raw.initialize()
        for index in range(3):
            answer = await call(alice, "demo__add", {"a": index, "b": 1}, index)
            assert "result" in answer, answer
        refused = await call(alice, "demo__add", {"a": 9, "b": 1}, 9)
        answer = await call(bob, "demo__add", {"a": 1, "b": 1}, 1)
    assert "result" in answer, f"bob's call was refused with alice's quota: {answer}"
    error = refused["error"]
    assert error["code"] == -32029
    assert error["data"]["limit"] == "user" and error["data"]["user"] == user_of(ALICE)
    assert 0 < error["data"]["retryAfterSeconds"] <= 100
    assert user_of(ALICE) in error["message"] and "retry in" in error["message"]


async def test_a_stateless_request_over_quota_is_429_with_retry_after(gw: Gateway):
    async with raw_as(gw.url, BOB) as raw:
        statuses = []
        for index in range(4):
            response = await raw.post(
                modern("tools/call", {"name": "demo__echo", "arguments": {"message": "x"}}, id=index),
                headers=modern_headers("tools/call", "demo__echo"),
            )
            statuses.append(response.status_code)
    # Bob may have spent a token in another test of this module: at most three pass, the last is refused.
    assert statuses[-1] == 429, statuses
    assert 1 <= int(response.headers["retry-after"]) <= 100
    assert answer_to(response, 3)["error"]["data"]["limit"] == "user"


async def test_a_stateless_request_that_opted_into_logs_is_429_with_retry_after_too(gw: Gateway):
    async with raw_as(gw.url, ALICE) as raw:
        for index in range(4):
            meta = {**ENVELOPE, "io.modelcontextprotocol/logLevel": "info"}
            body = modern("tools/call", {"name": "demo__echo", "arguments": {"message": "x"}}, id=index, meta=meta)
            response = await raw.post(body, headers=modern_headers("tools/call", "demo__echo"))
    assert response.status_code == 429, response.text[:300]
    assert 1 <= int(response.headers["retry-after"]) <= 100


async def test_a_tool_limit_is_per_user_and_a_profile_limit_is_shared(gw: Gateway):
    async with raw_as(gw.url, CAROL) as carol_raw:
        carol = await carol_raw.initialize()
        assert "result" in await call(carol, "demo__slow", {"seconds": 0}, 1)
        refused = (await call(carol, "demo__slow", {"seconds": 0}, 2))["error"]
        assert refused["data"]["limit"] == "tool" and refused["data"]["tool"] == "demo__slow"
        assert "result" in await call(carol, "demo__echo", {"message": "other tools still work"}, 3)
    async with raw_as(f"{gw.url}/ops", CAROL) as ops_raw:
        ops = await ops_raw.initialize()
        answers = [await call(ops, "demo__echo", {"message": str(index)}, index) for index in range(3)]
    assert ["result" in answer for answer in answers] == [True, True, False], answers
    assert answers[2]["error"]["data"]["limit"] == "profile" and answers[2]["error"]["data"]["profile"] == "ops"


async def test_refusals_are_counted_on_metrics(gw: Gateway):
    async with raw_as(gw.url, ALICE) as raw:
        alice = await raw.initialize()
        for index in range(4):
            await call(alice, "demo__add", {"a": index, "b": 2}, index)
    async with httpx2.AsyncClient(timeout=30) as http:
        text = (await http.get(f"{gw.base}/metrics")).text
    assert (sample(text, "yrden_rate_limited_total", limit="user") or 0) >= 1, text[:2000]
