"""Yrden as an OAuth-protected resource under attack (``gateway.auth``, against ``auth_server.py``): a flood of
distinct, well-formed JWTs with bad signatures while a good client keeps calling; one new opaque token presented
by many requests at once (one introspection); more distinct opaque tokens than the gateway introspects at once
(the rest refused 503 with ``Retry-After``, never queued); a refused token presented again (not asked again).
And a host that refreshes its access token mid-conversation is still the same client: its parked call's retry
with the new token is taken (another user's is refused), and its sessions count once against its bound.

One authorization server serves the whole module, and one gateway each part; each test reads the server's
counters before and after, and puts its introspection delay back.
"""

from __future__ import annotations

import base64
import json
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from harness import (
    ASKING_SERVER,
    JSON_AND_SSE,
    LEGACY_VERSION,
    MODERN_VERSION,
    PYTHON,
    Gateway,
    answer_to,
    clean_env,
    free_port,
    mcp_session,
    start_gateway,
    text_of,
)

AUTH_SERVER = Path(__file__).parent / "auth_server.py"
INTROSPECTION = ("yrden-introspector", "introspection-secret-77d1")
TIMEOUT = 30.0
# What the gateway introspects at once (AccessTokenVerifier's maxIntrospections).
MAX_INTROSPECTIONS = 32


@pytest.fixture(scope="module")
def issuer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("auth-server")
    out, log = workdir / "out", workdir / "log"
    with open(out, "wb") as out_file, open(log, "wb") as log_file:
        proc = subprocess.Popen(
            [PYTHON, str(AUTH_SERVER), "--introspection-client", ":".join(INTROSPECTION)],
            stdin=subprocess.DEVNULL, stdout=out_file, stderr=log_file, env=clean_env(),
        )
    deadline = time.monotonic() + 30
    while not out.read_text().strip():
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    yield out.read_text().strip()
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def gw(yrden: Path, issuer: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    port = free_port()
    config = {
        "gateway": {
            "auth": {
                "issuer": issuer,
                "audience": f"http://127.0.0.1:{port}/mcp",
                "scopes": ["mcp"],
                "introspection": {"clientId": INTROSPECTION[0], "clientSecret": INTROSPECTION[1]},
            },
        },
        "mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}},
    }
    gateway = start_gateway(yrden, config, tmp_path_factory.mktemp("hardening-gw"), port=port)
    yield gateway
    gateway.stop()


@pytest.fixture
def introspection_delay(issuer: str) -> Iterator[Any]:
    def set_delay(seconds: float) -> None:
        httpx2.post(f"{issuer}/control/introspection-delay", json={"seconds": seconds}, timeout=TIMEOUT).raise_for_status()

    yield set_delay
    set_delay(0)


def mint(issuer: str, **claims: Any) -> str:
    answer = httpx2.post(f"{issuer}/control/mint", json=claims, timeout=TIMEOUT)
    answer.raise_for_status()
    return answer.json()["token"]


def stats(issuer: str) -> dict[str, Any]:
    return httpx2.get(f"{issuer}/control/stats", timeout=TIMEOUT).json()


def initialize_body() -> dict[str, Any]:
    return {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }


async def initialize(http: httpx2.AsyncClient, gw: Gateway, token: str) -> httpx2.Response:
    headers = {"Content-Type": "application/json", "Accept": JSON_AND_SSE, "Authorization": f"Bearer {token}"}
    return await http.post(gw.url, json=initialize_body(), headers=headers)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forged_tokens(template: str) -> Iterator[str]:
    """Distinct well-formed JWTs naming the issuer's key, each with a signature that does not verify: the
    template's (made with another key) over claims that differ by their ``jti``."""
    header, payload, signature = template.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    number = 0
    while True:
        number += 1
        claims["jti"] = f"forged-{number}"
        yield f"{header}.{b64url(json.dumps(claims).encode())}.{signature}"


def is_refusal(answer: httpx2.Response) -> bool:
    """401 invalid_token, or 503 with Retry-After when the gateway checks as many tokens as it will at once."""
    if answer.status_code == 401:
        return 'error="invalid_token"' in answer.headers.get("WWW-Authenticate", "")
    return answer.status_code == 503 and "Retry-After" in answer.headers


async def test_a_flood_of_distinct_badly_signed_tokens_leaves_a_good_clients_calls_served(gw: Gateway, issuer: str) -> None:
    audience = f"{gw.base}/mcp"
    template = mint(issuer, aud=audience, foreign_key=True)
    good = mint(issuer, aud=audience)
    flood_size, workers = 1500, 16
    answers: Counter[str] = Counter()
    strange: list[str] = []
    good_calls: list[str] = []
    forged = forged_tokens(template)
    flooding = anyio.Event()
    flood_over = anyio.Event()

    async def flood(http: httpx2.AsyncClient) -> None:
        await flooding.wait()
        while sum(answers.values()) < flood_size:
            answer = await initialize(http, gw, next(forged))
            answers[str(answer.status_code)] += 1
            if not is_refusal(answer):
                strange.append(f"{answer.status_code} {answer.headers} {answer.text[:200]}")

    async def flood_all(http: httpx2.AsyncClient) -> None:
        async with anyio.create_task_group() as group:
            for _ in range(workers):
                group.start_soon(flood, http)
        flood_over.set()

    async def good_client() -> None:
        async with mcp_session(gw.url, headers={"Authorization": f"Bearer {good}"}, label="good client") as session:
            tools = await session.client.list_tools()
            echo = next(tool.name for tool in tools.tools if tool.name.endswith("echo"))
            flooding.set()
            while not flood_over.is_set():
                number = len(good_calls)
                result = await session.client.call_tool(echo, {"message": f"call {number}"})
                assert not result.is_error and f"call {number}" in text_of(result), text_of(result)
                good_calls.append(text_of(result))

    limits = httpx2.Limits(max_connections=workers, max_keepalive_connections=workers)
    async with httpx2.AsyncClient(timeout=TIMEOUT, limits=limits) as http:
        with anyio.fail_after(180):
            async with anyio.create_task_group() as group:
                group.start_soon(flood_all, http)
                group.start_soon(good_client)
    assert sum(answers.values()) >= flood_size and not strange, (answers, strange[:5])
    # Served throughout, not once the flood was over: a loop held by the flood would have let few calls through.
    assert len(good_calls) >= 5, f"{len(good_calls)} calls served during {flood_size} forged tokens"
    assert template.split(".")[2] not in gw.log_text(), "no token is logged"


async def test_requests_presenting_one_new_opaque_token_together_make_one_introspection(
    gw: Gateway, issuer: str, introspection_delay: Any
) -> None:
    token = mint(issuer, aud=f"{gw.base}/mcp", opaque=True)
    introspection_delay(1.0)
    before = stats(issuer)
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        with anyio.fail_after(60):
            answers: list[httpx2.Response] = []

            async def one() -> None:
                answers.append(await initialize(http, gw, token))

            async with anyio.create_task_group() as group:
                for _ in range(10):
                    group.start_soon(one)
    assert [a.status_code for a in answers] == [200] * 10, [a.text for a in answers if a.status_code != 200]
    assert stats(issuer)["introspect"] - before["introspect"] == 1


async def test_introspections_in_flight_are_bounded_and_the_rest_get_503_at_once(
    gw: Gateway, issuer: str, introspection_delay: Any
) -> None:
    extra = 8
    tokens = [mint(issuer, aud=f"{gw.base}/mcp", opaque=True) for _ in range(MAX_INTROSPECTIONS + extra)]
    introspection_delay(3.0)
    before = stats(issuer)
    limits = httpx2.Limits(max_connections=len(tokens), max_keepalive_connections=len(tokens))
    answers: list[tuple[httpx2.Response, float]] = []
    async with httpx2.AsyncClient(timeout=TIMEOUT, limits=limits) as http:

        async def one(token: str) -> None:
            started = time.monotonic()
            answer = await initialize(http, gw, token)
            answers.append((answer, time.monotonic() - started))

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for token in tokens:
                    group.start_soon(one, token)
    statuses = Counter(answer.status_code for answer, _ in answers)
    assert statuses == {200: MAX_INTROSPECTIONS, 503: extra}, statuses
    for answer, seconds in answers:
        if answer.status_code == 503:
            assert answer.headers["Retry-After"] == "1"
            assert "WWW-Authenticate" not in answer.headers, "a token not judged is not called invalid"
            # Refused at once, not queued behind the held introspections (which answer after 3 s).
            assert seconds < 3.0, seconds
    after = stats(issuer)
    assert after["introspect"] - before["introspect"] == MAX_INTROSPECTIONS
    assert after["introspect_concurrent_max"] <= MAX_INTROSPECTIONS


async def test_a_refused_opaque_token_presented_again_is_not_introspected_again(gw: Gateway, issuer: str) -> None:
    token = mint(issuer, aud=f"{gw.base}/mcp", opaque=True, exp_in=-600)
    before = stats(issuer)
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        for _ in range(5):
            answer = await initialize(http, gw, token)
            assert answer.status_code == 401 and 'error="invalid_token"' in answer.headers["WWW-Authenticate"]
    assert stats(issuer)["introspect"] - before["introspect"] == 1


@pytest.fixture(scope="module")
def asking_gw(yrden: Path, issuer: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    """A gateway whose server asks its user for input (parked calls on 2026-07-28), two sessions per client."""
    port = free_port()
    config = {
        "gateway": {
            "maxSessionsPerClient": 2,
            "auth": {"issuer": issuer, "audience": f"http://127.0.0.1:{port}/mcp", "scopes": ["mcp"]},
        },
        "mcpServers": {"asking": {"command": PYTHON, "args": [str(ASKING_SERVER)], "protocol": LEGACY_VERSION}},
    }
    gateway = start_gateway(yrden, config, tmp_path_factory.mktemp("asking-gw"), port=port)
    yield gateway
    gateway.stop()


ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "refreshing-host", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}


async def ask_name(http: httpx2.AsyncClient, gw: Gateway, token: str, request_id: int, **extra: Any) -> dict[str, Any]:
    """A 2026-07-28 ``tools/call`` of ``asking__ask_name`` with ``token``; its JSON-RPC answer."""
    body = {
        "jsonrpc": "2.0", "id": request_id, "method": "tools/call",
        "params": {"name": "asking__ask_name", "arguments": {}, **extra, "_meta": ENVELOPE},
    }
    headers = {
        "Accept": JSON_AND_SSE, "Content-Type": "application/json", "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": MODERN_VERSION, "Mcp-Method": "tools/call", "Mcp-Name": "asking__ask_name",
    }
    return answer_to(await http.post(gw.url, json=body, headers=headers), request_id)


async def test_a_parked_call_is_retried_with_a_refreshed_token_of_its_user_and_not_with_another_users(
    asking_gw: Gateway, issuer: str
) -> None:
    audience = f"{asking_gw.base}/mcp"
    first_token, refreshed = mint(issuer, sub="alice", aud=audience), mint(issuer, sub="alice", aud=audience)
    bobs = mint(issuer, sub="bob", aud=audience)
    assert first_token != refreshed
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        first = (await ask_name(http, asking_gw, first_token, 1))["result"]
        assert first["resultType"] == "input_required", first
        (key,) = first["inputRequests"]
        retry = {"requestState": first["requestState"], "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}}}
        refused = (await ask_name(http, asking_gw, bobs, 2, **retry))["error"]
        assert refused["code"] == -32602 and refused["data"]["reason"] == "invalid_request_state", refused
        done = (await ask_name(http, asking_gw, refreshed, 3, **retry))["result"]
        assert done["content"][0]["text"] == "Hello, Ada!", done


async def test_a_users_sessions_count_once_against_its_bound_whatever_token_opened_them(
    asking_gw: Gateway, issuer: str
) -> None:
    audience = f"{asking_gw.base}/mcp"
    async with httpx2.AsyncClient(timeout=TIMEOUT) as http:
        for _ in range(2):
            assert (await initialize(http, asking_gw, mint(issuer, sub="carol", aud=audience))).status_code == 200
        third = await initialize(http, asking_gw, mint(issuer, sub="carol", aud=audience))
        assert third.status_code != 200 and "too many sessions of this client" in third.text, third.text
        other = await initialize(http, asking_gw, mint(issuer, sub="dave", aud=audience))
        assert other.status_code == 200, "another user is another client"
