"""The REST admin API (`/api/v1`, openapi.yaml), driven over loopback as an operator's tools drive it.

Every test talks to a real gateway with an admin token. Read-only checks share one gateway per module;
tests that change servers or the config get their own. Every response body and header a test receives is
checked for the secrets the config holds (literal env and header values, an env value that a `${VAR}`
expands to, the admin token): none may appear.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

import harness
from harness import PYTHON, SAMPLE_SERVER, Gateway, await_until, free_port, mcp_session, start_gateway

TOKEN = "adm-7f3c9e51-token"
LITERAL_ENV_SECRET = "env-literal-5b1d0c"
HEADER_SECRET = "hdr-literal-9a2e77"
EXPANDED_SECRET = "ref-expanded-44c1f8"
SECRETS = (TOKEN, LITERAL_ENV_SECRET, HEADER_SECRET, EXPANDED_SECRET)
ENV = {"ADMIN_TOKEN_UNDER_TEST": TOKEN, "SAMPLE_TOKEN_UNDER_TEST": EXPANDED_SECRET}
MASK = "********"
CONNECT_TIMEOUT = 30.0


def admin_config(yrden: Path) -> dict[str, Any]:
    """demo (built-in, a literal secret in env), sample (Python SDK, a `${VAR}` secret), remote (unreachable,
    a literal secret header, never retried) and tasks (OAuth, which this gateway cannot sign in to yet)."""
    return {
        "gateway": {"adminToken": "${ADMIN_TOKEN_UNDER_TEST}"},
        "mcpServers": {
            "demo": {"command": str(yrden), "args": ["demo-server"], "env": {"DEMO_API_KEY": LITERAL_ENV_SECRET}},
            "sample": {
                "command": PYTHON,
                "args": [str(SAMPLE_SERVER)],
                "env": {"SAMPLE_TOKEN": "${SAMPLE_TOKEN_UNDER_TEST}"},
            },
            "remote": {
                "url": f"http://127.0.0.1:{free_port()}/mcp",
                "headers": {"Authorization": f"Bearer {HEADER_SECRET}"},
                "reconnect": "never",
            },
            "tasks": {
                "url": f"http://127.0.0.1:{free_port()}/mcp",
                "auth": {"type": "oauth", "scopes": ["tasks:read"]},
                "reconnect": "never",
            },
        },
    }


def sample_entry(**env: str) -> dict[str, Any]:
    return {"command": PYTHON, "args": [str(SAMPLE_SERVER)], "env": env}


class Admin:
    """An HTTP client of the admin API that keeps every response, to check them all for secrets."""

    def __init__(self, gw: Gateway, token: str | None = TOKEN):
        self.gw = gw
        self.base = f"{gw.base}/api/v1"
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=60.0), headers=headers)
        self.seen: list[str] = []

    async def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        content: bytes | str | None = None,
        content_type: str | None = None,
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
    ) -> httpx2.Response:
        headers = dict(headers or {})
        if body is not None:
            content = json.dumps(body)
            headers.setdefault("Content-Type", content_type or "application/json")
        elif content_type is not None:
            headers["Content-Type"] = content_type
        response = await self.http.request(method, self.base + path, content=content, headers=headers, params=params)
        self.record(response.text, response.headers)
        return response

    def record(self, text: str, headers: Any = ()) -> None:
        self.seen.append(text)
        self.seen.extend(f"{k}: {v}" for k, v in dict(headers).items())

    async def get(self, path: str, **kw: Any) -> httpx2.Response:
        return await self.request("GET", path, **kw)

    async def ok(self, method: str, path: str, body: Any = None, status: int = 200, **kw: Any) -> Any:
        response = await self.request(method, path, body, **kw)
        assert response.status_code == status, f"{method} {path}: HTTP {response.status_code}: {response.text[:800]}"
        return response.json() if response.content else None

    async def server(self, server_id: str) -> dict[str, Any]:
        return await self.ok("GET", f"/servers/{server_id}")

    async def wait_state(self, server_id: str, state: str, timeout: float = CONNECT_TIMEOUT) -> dict[str, Any]:
        last: dict[str, Any] = {}

        async def reached() -> dict[str, Any] | None:
            nonlocal last
            last = await self.server(server_id)
            return last if last["state"] == state else None

        try:
            return await await_until(reached, timeout, interval=0.2)
        except TimeoutError:
            raise AssertionError(f"{server_id} did not become {state} within {timeout}s; last view: {last}") from None

    def assert_no_secrets(self) -> None:
        for text in self.seen:
            for secret in SECRETS:
                assert secret not in text, f"a response carried the secret {secret!r}: {text[:500]}"

    async def aclose(self) -> None:
        await self.http.aclose()


def assert_problem(response: httpx2.Response, status: int) -> dict[str, Any]:
    """The response is an RFC 9457 problem document with this status; returns it."""
    assert response.status_code == status, f"expected {status}, got {response.status_code}: {response.text[:800]}"
    assert response.headers["content-type"].startswith("application/problem+json"), response.headers
    problem = response.json()
    assert problem["status"] == status and problem["title"] and problem["detail"], problem
    return problem


def error_paths(problem: dict[str, Any]) -> list[str]:
    return [e["path"] for e in problem.get("errors", [])]


class EventStream:
    """The `GET /api/v1/events` stream, read in the background: every event as (name, data)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.comments: list[str] = []
        self.status: int | None = None
        self.content_type = ""
        self.ended = False
        self._arrived = anyio.Event()

    async def run(self, admin: Admin, opened: anyio.Event) -> None:
        name = "message"
        try:
            async with admin.http.stream("GET", f"{admin.base}/events") as response:
                self.status = response.status_code
                self.content_type = response.headers.get("content-type", "")
                opened.set()
                async for line in response.aiter_lines():
                    admin.record(line)
                    if line.startswith("event:"):
                        name = line[6:].strip()
                    elif line.startswith("data:"):
                        self.events.append((name, json.loads(line[5:].strip())))
                        self._arrived.set()
                        self._arrived = anyio.Event()
                    elif line.startswith(":"):
                        self.comments.append(line)
        finally:
            self.ended = True
            opened.set()
            self._arrived.set()

    async def wait_for(
        self, predicate: Callable[[str, dict[str, Any]], bool], *, after: int = 0, timeout: float = CONNECT_TIMEOUT
    ) -> int:
        """The index of the first event from ``after`` on that satisfies ``predicate``."""
        try:
            with anyio.fail_after(timeout):
                while True:
                    arrived = self._arrived
                    for index in range(after, len(self.events)):
                        if predicate(*self.events[index]):
                            return index
                    assert not self.ended, f"the event stream ended; events: {self.summary()}"
                    await arrived.wait()
        except TimeoutError:
            raise AssertionError(f"no matching event within {timeout}s; events: {self.summary()}") from None

    def summary(self) -> list[str]:
        return [f"{name} {data.get('id') or data['server']['id']}:{state_of(data)}" for name, data in self.events]


def state_of(data: dict[str, Any]) -> str | None:
    server = data.get("server")
    return server.get("state") if isinstance(server, dict) else None


def server_event(name: str, server_id: str, state: str | None = None) -> Callable[[str, dict[str, Any]], bool]:
    def matches(event: str, data: dict[str, Any]) -> bool:
        if event != name:
            return False
        if name == "server.removed" or name == "server.catalog":
            return data.get("id") == server_id
        return data["server"]["id"] == server_id and (state is None or data["server"]["state"] == state)

    return matches


@asynccontextmanager
async def event_stream(admin: Admin) -> AsyncIterator[EventStream]:
    stream = EventStream()
    async with anyio.create_task_group() as tg:
        opened = anyio.Event()
        tg.start_soon(stream.run, admin, opened)
        with anyio.fail_after(10):
            await opened.wait()
        assert stream.status == 200, f"GET /events answered {stream.status}"
        assert stream.content_type.startswith("text/event-stream"), stream.content_type
        yield stream
        tg.cancel_scope.cancel()


# ---------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def shared(yrden: Path, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Gateway]:
    """One gateway for the checks that change nothing."""
    gw = start_gateway(yrden, admin_config(yrden), tmp_path_factory.mktemp("admin-shared"), env=ENV)
    yield gw
    gw.stop()
    harness.stop_quietly(gw.children_at_stop)


@pytest.fixture
async def admin(shared: Gateway) -> AsyncIterator[Admin]:
    client = Admin(shared)
    yield client
    await client.aclose()
    client.assert_no_secrets()


@pytest.fixture
def own_gateway(yrden: Path, gateway) -> Callable[..., Gateway]:
    """A fresh gateway with the admin config, for tests that change it."""

    def start(config: dict[str, Any] | None = None) -> Gateway:
        return gateway(config or admin_config(yrden), env=ENV)

    return start


@asynccontextmanager
async def admin_of(gw: Gateway) -> AsyncIterator[Admin]:
    client = Admin(gw)
    try:
        yield client
    finally:
        await client.aclose()
    client.assert_no_secrets()


# ---------------------------------------------------------------------------
# Access


async def test_the_admin_token_is_required(shared: Gateway):
    async with httpx2.AsyncClient(timeout=10) as http:
        url = f"{shared.base}/api/v1/servers"
        missing = await http.get(url)
        problem = assert_problem(missing, 401)
        assert missing.headers["www-authenticate"].startswith("Bearer"), missing.headers
        assert TOKEN not in missing.text

        wrong = await http.get(url, headers={"Authorization": "Bearer not-the-token"})
        assert_problem(wrong, 401)
        assert 'error="invalid_token"' in wrong.headers["www-authenticate"]

        basic = await http.get(url, headers={"Authorization": f"Basic {TOKEN}"})
        assert_problem(basic, 401)

        right = await http.get(url, headers={"Authorization": f"Bearer {TOKEN}"})
        assert right.status_code == 200, right.text
        assert problem["status"] == 401

        # Every path under /api/v1 is guarded, even unknown ones; the ops endpoints are not.
        assert_problem(await http.get(f"{shared.base}/api/v1/nothing"), 401)
        assert_problem(await http.post(f"{shared.base}/api/v1/servers/demo/restart"), 401)
        assert (await http.get(f"{shared.base}/healthz")).status_code == 200


async def test_pages_of_other_sites_are_refused(admin: Admin):
    foreign = await admin.get("/servers", headers={"Origin": "https://evil.example"})
    assert_problem(foreign, 403)
    own = await admin.get("/servers", headers={"Origin": admin.gw.base})
    assert own.status_code == 200, own.text
    # A state-changing request from another site changes nothing.
    evil = {"Origin": "http://evil.example"}
    assert_problem(await admin.request("POST", "/servers/demo/disconnect", headers=evil), 403)
    assert (await admin.server("demo"))["state"] == "connected"


async def test_unknown_paths_ids_and_methods(admin: Admin):
    assert_problem(await admin.get("/nothing"), 404)
    assert_problem(await admin.get("/servers/nope"), 404)
    assert_problem(await admin.get("/servers/Bad%20Id"), 404)
    assert_problem(await admin.get("/servers/nope/tools"), 404)
    assert_problem(await admin.request("POST", "/servers/nope/connect"), 404)
    assert_problem(await admin.request("DELETE", "/servers/nope"), 404)

    wrong = await admin.request("DELETE", "/servers")
    assert_problem(wrong, 405)
    assert {m.strip() for m in wrong.headers["allow"].split(",")} == {"GET", "POST"}
    events = await admin.request("PUT", "/events")
    assert_problem(events, 405)
    assert events.headers["allow"] == "GET"
    one = await admin.request("POST", "/servers/demo")
    assert {m.strip() for m in one.headers["allow"].split(",")} == {"GET", "PUT", "PATCH", "DELETE"}


# ---------------------------------------------------------------------------
# Reading servers, catalogs, logs and the config


async def test_servers_are_listed_in_config_order_with_their_state(admin: Admin):
    await admin.wait_state("demo", "connected")
    await admin.wait_state("sample", "connected")
    servers = (await admin.ok("GET", "/servers"))["servers"]
    assert [s["id"] for s in servers] == ["demo", "sample", "remote", "tasks"]
    by_id = {s["id"]: s for s in servers}

    demo = by_id["demo"]
    assert demo["transport"] == "stdio" and demo["enabled"] is True
    assert demo["config"]["env"] == {"DEMO_API_KEY": MASK}, "a literal env value must be redacted"
    assert demo["counts"]["tools"] > 0 and demo["connectedSince"] and demo["reconnect"] is None
    assert demo["lastError"] is None and demo["auth"] is None
    assert isinstance(demo["serverInfo"], dict) and demo["serverInfo"].get("name")
    assert demo["protocolVersion"]

    sample = by_id["sample"]
    assert sample["config"]["env"] == {"SAMPLE_TOKEN": "${SAMPLE_TOKEN_UNDER_TEST}"}, "a reference is shown as written"
    assert sample["serverInfo"]["name"] == "yrden-interop-sample"

    remote = by_id["remote"]
    assert remote["transport"] == "http"
    assert remote["state"] == "failed", remote
    assert remote["lastError"]["kind"] == "network", remote
    assert remote["reconnect"] is None, "reconnect is never: no retry is scheduled"
    assert remote["config"]["headers"] == {"Authorization": MASK}
    assert remote["counts"] == {"tools": 0, "prompts": 0, "resources": 0}
    assert remote["protocolVersion"] is None and remote["serverInfo"] is None

    assert await admin.server("sample") == by_id["sample"] | {"connectedSince": sample["connectedSince"]}


async def test_catalog_of_one_server_and_the_aggregate(admin: Admin):
    await admin.wait_state("sample", "connected")
    tools = (await admin.ok("GET", "/servers/sample/tools"))["tools"]
    names = {t["name"] for t in tools}
    assert {"greet", "progress", "add_tool", "pid"} <= names, names
    assert all("__" not in n for n in names), "a server's own list has bare names"
    greet = next(t for t in tools if t["name"] == "greet")
    assert greet["inputSchema"]["properties"]["name"], greet

    prompts = (await admin.ok("GET", "/servers/sample/prompts"))["prompts"]
    assert [p["name"] for p in prompts] == ["summarize"]
    resources = await admin.ok("GET", "/servers/sample/resources")
    assert [r["uri"] for r in resources["resources"]] == ["sample://readme"]
    assert [t["uriTemplate"] for t in resources["resourceTemplates"]] == ["sample://items/{id}"]
    assert await admin.ok("GET", "/servers/remote/tools") == {"tools": []}, "never connected: empty"

    aggregated = (await admin.ok("GET", "/tools"))["tools"]
    async with mcp_session(admin.gw.url, mode="legacy") as session:
        listed = [t.name for t in await session.tools()]
    assert [a["tool"]["name"] for a in aggregated] == listed, "the aggregate is /mcp's tools/list, in order"
    owners = {a["tool"]["name"]: a["server"] for a in aggregated}
    assert owners["sample__greet"] == "sample"
    assert {owner for owner in owners.values()} == {"demo", "sample"}


async def test_logs_filter_by_server_level_time_and_count(admin: Admin):
    await admin.wait_state("sample", "connected")
    entries = (await admin.ok("GET", "/logs", params={"limit": 1000}))["entries"]
    assert entries, "no log entries at all"
    times = [e["time"] for e in entries]
    assert times == sorted(times), "entries are oldest first"
    assert {e["server"] for e in entries} >= {"sample", "remote"}
    for entry in entries:
        assert set(entry) == {"time", "level", "server", "event", "message", "metadata"}, entry
        assert entry["time"].endswith("Z")

    sample = (await admin.ok("GET", "/logs", params={"server": "sample"}))["entries"]
    assert sample and {e["server"] for e in sample} == {"sample"}
    assert any(e["event"] == "state" and "connected" in e["message"] for e in sample), sample

    warnings = (await admin.ok("GET", "/logs", params={"level": "warning"}))["entries"]
    assert warnings, "the unreachable server's failure is logged as an error"
    assert {e["level"] for e in warnings} <= {"warning", "error", "critical"}
    assert any(e["server"] == "remote" for e in warnings)

    newest = (await admin.ok("GET", "/logs", params={"limit": 1000}))["entries"]
    last = (await admin.ok("GET", "/logs", params={"limit": 1}))["entries"]
    assert len(last) == 1 and last[0] in newest[-3:]
    if len(newest) >= 2:
        later = (await admin.ok("GET", "/logs", params={"since": newest[-2]["time"], "limit": 1000}))["entries"]
        assert newest[-2] not in later and newest[-1] in later

    for params, path in [
        ({"level": "loud"}, "level"),
        ({"limit": "0"}, "limit"),
        ({"limit": "1001"}, "limit"),
        ({"limit": "many"}, "limit"),
        ({"since": "yesterday"}, "since"),
        ({"server": "Bad Id"}, "server"),
    ]:
        problem = assert_problem(await admin.get("/logs", params=params), 400)
        assert error_paths(problem) == [path], problem
    assert_problem(await admin.get("/logs", params={"server": "nope"}), 404)


async def test_config_is_shown_as_written_with_secrets_redacted(admin: Admin):
    document = await admin.ok("GET", "/config")
    assert document["gateway"]["adminToken"] == "${ADMIN_TOKEN_UNDER_TEST}"
    servers = document["mcpServers"]
    assert list(servers) == ["demo", "sample", "remote", "tasks"]
    assert servers["demo"]["env"]["DEMO_API_KEY"] == MASK
    assert servers["remote"]["headers"]["Authorization"] == MASK
    assert servers["sample"]["env"]["SAMPLE_TOKEN"] == "${SAMPLE_TOKEN_UNDER_TEST}"


# ---------------------------------------------------------------------------
# Requests that are refused change nothing


async def test_bad_new_servers_are_refused_with_every_problem(admin: Admin):
    broken = await admin.request("POST", "/servers", content="{oops", content_type="application/json")
    not_json = assert_problem(broken, 400)
    assert "errors" not in not_json and "JSON" in not_json["detail"]
    assert_problem(await admin.request("POST", "/servers", content="id=x", content_type="text/plain"), 415)
    assert_problem(await admin.request("POST", "/servers", content='{"id": "x"}'), 415)

    typo = assert_problem(await admin.request("POST", "/servers", {"id": "x", "config": {"comand": "true"}}), 400)
    assert "mcpServers.x.comand" in error_paths(typo), typo
    assert all(e["message"] and e["fix"] for e in typo["errors"])
    bad_id = await admin.request("POST", "/servers", {"id": "Bad Id", "config": {"command": "true"}})
    bad_id = assert_problem(bad_id, 400)
    assert error_paths(bad_id) == ["id"], bad_id
    shape = assert_problem(await admin.request("POST", "/servers", {"name": "x"}), 400)
    assert set(error_paths(shape)) == {"name", "id", "config"}
    charset = await admin.request(
        "POST", "/servers", {"id": "x", "config": {"comand": "true"}}, content_type="application/json; charset=utf-8"
    )
    assert_problem(charset, 400)
    duplicate = await admin.request("POST", "/servers", {"id": "demo", "config": {"command": "true"}})
    duplicate = assert_problem(duplicate, 409)
    assert "demo" in duplicate["detail"]
    same_prefix = await admin.request("POST", "/servers", {"id": "y", "config": {"command": "true", "prefix": "demo"}})
    assert "mcpServers.y.prefix" in error_paths(assert_problem(same_prefix, 400))

    assert_problem(await admin.get("/servers/x"), 404)
    assert [s["id"] for s in (await admin.ok("GET", "/servers"))["servers"]] == ["demo", "sample", "remote", "tasks"]


async def test_bad_changes_to_a_server_are_refused(admin: Admin):
    before = await admin.server("demo")
    assert_problem(await admin.request("PATCH", "/servers/demo", {"disabled": True}), 415)
    merge = "application/merge-patch+json"
    not_object = assert_problem(await admin.request("PATCH", "/servers/demo", [1], content_type=merge), 400)
    assert error_paths(not_object) == [""]
    bad_type = assert_problem(await admin.request("PATCH", "/servers/demo", {"command": 5}, content_type=merge), 400)
    assert "mcpServers.demo.command" in error_paths(bad_type)
    assert_problem(await admin.request("PATCH", "/servers/nope", {}, content_type=merge), 404)
    assert_problem(await admin.request("PUT", "/servers/demo", {"comand": "x"}, content_type="text/plain"), 415)
    typo = assert_problem(await admin.request("PUT", "/servers/demo", {"comand": "x"}), 400)
    assert "mcpServers.demo.comand" in error_paths(typo)
    assert_problem(await admin.request("PUT", "/servers/nope", {"command": "true"}), 404)
    after = await admin.server("demo")
    assert after["config"] == before["config"] and after["state"] == "connected"


async def test_bad_config_documents_are_refused(admin: Admin):
    document = await admin.ok("GET", "/config")
    missing = assert_problem(await admin.request("PUT", "/config", {"gateway": document["gateway"]}), 400)
    assert error_paths(missing) == ["mcpServers"]
    # The listen address comes from --listen (a YRDEN_* override) here, so the separator is what can change.
    moved = json.loads(json.dumps(document))
    moved.setdefault("gateway", {})["toolSeparator"] = "--"
    conflict = assert_problem(await admin.request("PUT", "/config", moved), 409)
    assert error_paths(conflict) == ["gateway.toolSeparator"], conflict
    typo = json.loads(json.dumps(document))
    typo["mcpServers"]["demo"]["comand"] = "x"
    assert "mcpServers.demo.comand" in error_paths(assert_problem(await admin.request("PUT", "/config", typo), 400))
    assert_problem(await admin.request("PUT", "/config", content="{", content_type="application/json"), 400)
    assert_problem(await admin.request("PUT", "/config", document, content_type="text/yaml"), 415)
    assert await admin.ok("GET", "/config") == document


async def test_a_token_naming_an_unset_variable_is_refused_naming_it(admin: Admin):
    # Read as "no token", it would open the profile (or the gateway's endpoints) to anyone.
    document = await admin.ok("GET", "/config")
    opened = json.loads(json.dumps(document))
    opened["profiles"] = {"p": {"clientTokens": ["${PROFILE_TOKEN_NOT_SET}"]}}
    refused = assert_problem(await admin.request("PUT", "/config", opened), 400)
    assert error_paths(refused) == ["profiles.p.clientTokens[0]"], refused
    assert "PROFILE_TOKEN_NOT_SET is not set" in refused["errors"][0]["message"], refused
    profile = {"clientTokens": ["${PROFILE_TOKEN_NOT_SET}"]}
    refused = assert_problem(await admin.request("PUT", "/profiles/p", profile), 400)
    assert error_paths(refused) == ["profiles.p.clientTokens[0]"], refused
    assert "PROFILE_TOKEN_NOT_SET is not set" in refused["errors"][0]["message"], refused
    emptied = assert_problem(await admin.request("PUT", "/profiles/p", {"clientTokens": [""]}), 400)
    assert error_paths(emptied) == ["profiles.p.clientTokens[0]"], emptied
    assert (await admin.get("/profiles/p")).status_code == 404
    assert await admin.ok("GET", "/config") == document


async def test_profiles_null_reads_as_absent_and_is_never_shown(admin: Admin):
    # The schema has `profiles` as an object; null means absent, as for every key, and is not echoed.
    document = await admin.ok("GET", "/config")
    assert "profiles" not in document
    answer = await admin.ok("PUT", "/config", {**document, "profiles": None})
    assert "profiles" not in answer["config"], answer
    assert answer["changes"]["added"] == [] and answer["changes"]["removed"] == [], answer
    assert await admin.ok("GET", "/config") == document
    assert (await admin.ok("GET", "/profiles"))["profiles"] == []


async def test_oauth_endpoints(admin: Admin):
    not_oauth = assert_problem(await admin.request("POST", "/servers/demo/auth"), 409)
    assert "OAuth" in not_oauth["detail"]
    assert_problem(await admin.request("DELETE", "/servers/demo/tokens"), 409)
    assert_problem(await admin.request("POST", "/servers/nope/auth"), 404)
    # tasks' server is not there: the sign-in starts, cannot discover its authorization server, and says so.
    started = await admin.ok("POST", "/servers/tasks/auth", status=202)
    assert started["status"] == "failed" and started["reason"], started
    assert (await admin.server("tasks"))["auth"]["status"] == "failed"
    callback = "/servers/tasks/auth/callback"
    assert_problem(await admin.request("POST", callback, content="url=x", content_type="text/plain"), 415)
    assert error_paths(assert_problem(await admin.request("POST", callback, {}), 400)) == ["url"]
    redirect = {"url": "http://127.0.0.1/oauth/callback?code=a&state=b"}
    unknown_state = assert_problem(await admin.request("POST", callback, redirect), 400)
    assert "sign-in" in unknown_state["detail"], unknown_state
    signed_out = await admin.request("DELETE", "/servers/tasks/tokens")
    assert signed_out.status_code == 204, signed_out.text


# ---------------------------------------------------------------------------
# Changes


async def test_a_posted_server_joins_mcp_and_a_deleted_one_leaves_with_its_process(own_gateway):
    gw = own_gateway()
    async with admin_of(gw) as admin, event_stream(admin) as events:
        async with mcp_session(gw.url, mode="legacy", subscribe=True) as session:
            await session.wait_for_tools({"sample__greet"})
            seen = len(session.notifications)

            response = await admin.request("POST", "/servers", {"id": "extra", "config": sample_entry()})
            assert response.status_code == 201, response.text
            assert response.headers["location"] == "/api/v1/servers/extra"
            created = response.json()
            assert created["id"] == "extra" and created["state"] in {"idle", "connecting", "connected"}

            await session.wait_for_tools({"extra__greet", "extra__pid"})
            await session.wait_for_notification("notifications/tools/list_changed", after=seen)
            added = await events.wait_for(server_event("server.added", "extra"))
            connecting = await events.wait_for(server_event("server.state", "extra", "connecting"), after=added)
            await events.wait_for(server_event("server.state", "extra", "connected"), after=connecting)
            await events.wait_for(server_event("server.catalog", "extra"), after=added)

            pid = (await session.client.call_tool("extra__pid", {})).structured_content["result"]
            assert harness.is_running(pid) and harness.proc_info(pid).ppid == gw.pid
            seen = len(session.notifications)

            deleted = await admin.request("DELETE", "/servers/extra")
            assert deleted.status_code == 204, deleted.text
            assert harness.proc_info(pid) is None, f"the child {pid} was not reaped when the 204 arrived"
            assert not {n for n in await session.tool_names() if n.startswith("extra__")}
            await session.wait_for_notification("notifications/tools/list_changed", after=seen)
            await events.wait_for(server_event("server.removed", "extra"))
            assert_problem(await admin.get("/servers/extra"), 404)
            assert "extra" not in json.loads(gw.config_path.read_text())["mcpServers"]


async def test_changing_one_server_in_the_config_restarts_only_that_one(own_gateway):
    gw = own_gateway()
    async with admin_of(gw) as admin:
        await admin.wait_state("sample", "connected")
        await admin.wait_state("demo", "connected")
        demo_pid = gw.child("demo-server").pid
        sample_pid = gw.child("sample_server.py").pid

        document = await admin.ok("GET", "/config")
        document["mcpServers"]["sample"]["env"]["EXTRA_FLAG"] = "1"
        update = await admin.ok("PUT", "/config", document)
        assert update["changes"] == {
            "added": [],
            "removed": [],
            "restarted": ["sample"],
            "unchanged": ["demo", "remote", "tasks"],
        }, "the redacted values sent back must count as unchanged"
        assert update["config"]["mcpServers"]["sample"]["env"]["EXTRA_FLAG"] == MASK

        await await_until(
            lambda: (c := gw.child("sample_server.py")) is not None and c.pid != sample_pid, CONNECT_TIMEOUT
        )
        await admin.wait_state("sample", "connected")
        assert gw.child("demo-server").pid == demo_pid, "an unchanged server was restarted"
        assert (await admin.server("demo"))["state"] == "connected"

        on_disk = gw.config_path.read_text()
        saved = json.loads(on_disk)
        assert saved["mcpServers"]["sample"]["env"] == {
            "SAMPLE_TOKEN": "${SAMPLE_TOKEN_UNDER_TEST}",
            "EXTRA_FLAG": "1",
        }
        assert saved["gateway"]["adminToken"] == "${ADMIN_TOKEN_UNDER_TEST}"
        assert saved["mcpServers"]["demo"]["env"]["DEMO_API_KEY"] == LITERAL_ENV_SECRET, "the stored secret was kept"
        assert MASK not in on_disk, "a redaction mark was written to the file"
        assert EXPANDED_SECRET not in on_disk and TOKEN not in on_disk


async def test_a_literal_admin_token_survives_a_config_round_trip(own_gateway, yrden):
    config = admin_config(yrden)
    config["gateway"]["adminToken"] = TOKEN
    gw = own_gateway(config)
    async with admin_of(gw) as admin:
        document = await admin.ok("GET", "/config")
        assert document["gateway"]["adminToken"] == MASK
        update = await admin.ok("PUT", "/config", document)
        assert update["changes"]["restarted"] == [] and update["changes"]["removed"] == []
        saved = json.loads(gw.config_path.read_text())
        assert saved["gateway"]["adminToken"] == TOKEN, "the stored token was kept, not replaced by the mark"


async def test_replace_and_patch_a_server(own_gateway):
    gw = own_gateway()
    async with admin_of(gw) as admin:
        view = await admin.wait_state("sample", "connected")
        pid = gw.child("sample_server.py").pid

        same = await admin.ok("PUT", "/servers/sample", view["config"])
        assert same["config"] == view["config"]
        assert gw.child("sample_server.py").pid == pid, "an unchanged entry must not restart the server"

        entry = dict(view["config"], env={"SAMPLE_TOKEN": "${SAMPLE_TOKEN_UNDER_TEST}", "MODE": "b"})
        await admin.ok("PUT", "/servers/sample", entry)
        await await_until(lambda: (c := gw.child("sample_server.py")) is not None and c.pid != pid, CONNECT_TIMEOUT)
        await admin.wait_state("sample", "connected")

        merge = "application/merge-patch+json"
        demo = await admin.server("demo")
        patched = await admin.ok("PATCH", "/servers/demo", {"disabled": True}, content_type=merge)
        assert patched["state"] == "disabled" and patched["enabled"] is False
        assert patched["config"]["env"] == demo["config"]["env"] == {"DEMO_API_KEY": MASK}
        assert gw.child("demo-server") is None, "a disabled server's process must be stopped"
        assert_problem(await admin.request("POST", "/servers/demo/connect"), 409)
        assert_problem(await admin.request("POST", "/servers/demo/restart"), 409)
        await admin.ok("PATCH", "/servers/demo", {"disabled": None}, content_type=merge)
        await admin.wait_state("demo", "connected")
        saved = json.loads(gw.config_path.read_text())["mcpServers"]
        assert "disabled" not in saved["demo"] and saved["demo"]["env"]["DEMO_API_KEY"] == LITERAL_ENV_SECRET
        assert saved["sample"]["env"]["MODE"] == "b"


async def test_disconnect_connect_and_restart(own_gateway):
    gw = own_gateway()
    async with admin_of(gw) as admin:
        await admin.wait_state("sample", "connected")
        first = gw.child("sample_server.py").pid

        down = await admin.ok("POST", "/servers/sample/disconnect", status=202)
        assert down["state"] == "disconnected" and down["counts"]["tools"] == 0
        assert harness.proc_info(first) is None, "the child was not stopped when the 202 arrived"
        remembered = (await admin.ok("GET", "/servers/sample/tools"))["tools"]
        assert "greet" in {t["name"] for t in remembered}, "the last known tools stay readable"
        assert (await admin.server("sample"))["serverInfo"]["name"] == "yrden-interop-sample"

        up = await admin.ok("POST", "/servers/sample/connect", status=202)
        assert up["state"] in {"idle", "connecting", "connected"}
        await admin.wait_state("sample", "connected")
        second = gw.child("sample_server.py").pid
        assert second != first

        await admin.ok("POST", "/servers/sample/restart", status=202)
        await await_until(lambda: (c := gw.child("sample_server.py")) is not None and c.pid != second, CONNECT_TIMEOUT)
        await admin.wait_state("sample", "connected")


async def test_a_server_added_over_the_api_survives_a_restart(own_gateway, yrden):
    gw = own_gateway()
    async with admin_of(gw) as admin:
        await admin.ok(
            "POST", "/servers", {"id": "extra", "config": sample_entry(TOKEN="${SAMPLE_TOKEN_UNDER_TEST}")}, status=201
        )
        await admin.wait_state("extra", "connected")
    on_disk = gw.config_path.read_text()
    assert json.loads(on_disk)["mcpServers"]["extra"]["env"] == {"TOKEN": "${SAMPLE_TOKEN_UNDER_TEST}"}
    assert EXPANDED_SECRET not in on_disk
    gw.stop()
    harness.stop_quietly(gw.children_at_stop)

    again = start_gateway(yrden, on_disk, gw.workdir, env=ENV)
    try:
        async with admin_of(again) as admin:
            assert [s["id"] for s in (await admin.ok("GET", "/servers"))["servers"]][-1] == "extra"
            await admin.wait_state("extra", "connected")
    finally:
        again.stop()
        harness.stop_quietly(again.children_at_stop)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of ``pid`` so far."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def test_an_idle_event_stream_keeps_alive_without_spinning_and_ends_with_the_gateway(own_gateway):
    gw = own_gateway()
    async with admin_of(gw) as admin:
        await admin.wait_state("sample", "connected")
        async with event_stream(admin) as events:
            before = cpu_seconds(gw.pid)
            with anyio.fail_after(20):
                while not events.comments:
                    await anyio.sleep(0.2)
            used = cpu_seconds(gw.pid) - before
            assert events.comments[0] == ": keepalive"
            assert used < 2.0, f"the gateway used {used:.1f} s of CPU while the only stream was idle"

            status = await anyio.to_thread.run_sync(gw.stop)
            assert status == 0 and not gw.killed, f"exit {status}; killed: {gw.killed}"
            assert gw.stop_seconds is not None and gw.stop_seconds < 10, gw.stop_seconds
            with anyio.fail_after(5):
                while not events.ended:
                    await anyio.sleep(0.1)


async def test_a_kill_during_config_writes_leaves_the_old_or_the_new_file(own_gateway, yrden):
    """The gateway is killed (SIGKILL) while PATCHes rewrite the file as fast as they can: whatever instant the
    kill lands on, the file on disk is one whole version the API was sent, and a gateway starts from it."""
    padding = "p" * 50_000  # a large entry, so a write takes long enough to be cut into
    for round_ in range(4):
        config = {
            "gateway": {"adminToken": "${ADMIN_TOKEN_UNDER_TEST}"},
            "mcpServers": {"parked": {"command": str(yrden), "args": ["demo-server"], "disabled": True}},
        }
        gw = own_gateway(config)
        sent = {"v0"}
        answered = [0]
        admin = Admin(gw)

        async def rewrite() -> None:
            for n in range(1, 10_000):
                value = f"v{n}"
                sent.add(value)
                patch = {"env": {"VERSION": value, "PAD": padding}}
                try:
                    await admin.request("PATCH", "/servers/parked", patch, content_type="application/merge-patch+json")
                except httpx2.HTTPError:
                    return  # the gateway is gone
                answered[0] += 1

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(rewrite)
            # Writes are under way (two answered, however loaded the machine), and the kill lands at another
            # moment of them each round.
            await await_until(lambda: answered[0] >= 2, 30, interval=0.02)
            await anyio.sleep(0.1 * round_)
            gw.proc.kill()
        await admin.aclose()
        gw.proc.wait(timeout=10)

        saved = json.loads(gw.config_path.read_text())  # parses: never a torn file
        entry = saved["mcpServers"]["parked"]
        assert entry.get("env", {}).get("VERSION", "v0") in sent
        assert len(sent) > 2, "no write was under way when the gateway was killed"
        again = start_gateway(yrden, saved, gw.workdir, env=ENV)
        try:
            async with admin_of(again) as check:
                assert (await check.server("parked"))["state"] == "disabled"
        finally:
            again.stop()
