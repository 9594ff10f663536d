"""The deprecated HTTP+SSE transport downstream (``GET /sse`` + ``POST /messages``), for hosts that speak only
MCP 2024-11-05: the official SDK 1.x's SSE client against the aggregate and against one server alone, and what
the endpoints answer a client that breaks the transport's rules.
"""

from __future__ import annotations

import json
import subprocess

import httpx2
import pytest

from harness import INTEROP_DIR, PYTHON, REPO_ROOT, SAMPLE_SERVER, clean_env, wait_until

VENV_1X = REPO_ROOT / ".venv-1x" / "bin" / "python"
CLIENT = INTEROP_DIR / "clients" / "client_1x_sse.py"
needs_1x = pytest.mark.skipif(not VENV_1X.exists(), reason="make test installs .venv-1x (requirements-1x.txt)")


def config(yrden) -> dict:
    return {
        "mcpServers": {
            "demo": {"command": str(yrden), "args": ["demo-server"]},
            "sample": {"command": PYTHON, "args": [str(SAMPLE_SERVER)]},
        }
    }


def sessions(gw) -> int:
    return httpx2.get(f"{gw.base}/healthz", timeout=10).json()["sessions"]


def run_client(*args: str) -> dict:
    run = subprocess.run([str(VENV_1X), str(CLIENT), *args], capture_output=True, text=True, timeout=120, env=clean_env())
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@needs_1x
def test_a_2024_host_uses_the_aggregate_over_sse(gateway, yrden):
    gw = gateway(config(yrden))
    seen = run_client(f"{gw.base}/sse", "demo__echo", "sample__add_tool")
    assert seen["protocolVersion"] != "2026-07-28", "a session of the handshake era, as that transport has"
    assert {"demo__echo", "sample__greet", "sample__add_tool"} <= set(seen["tools"])
    assert seen["called"] == "over sse"
    assert "notifications/tools/list_changed" in seen["heard"]
    assert "sample__fresh" in seen["after"]


@needs_1x
def test_a_2024_host_uses_one_server_alone_over_sse(gateway, yrden):
    gw = gateway(config(yrden))
    seen = run_client(f"{gw.base}/servers/demo/sse", "echo")
    assert "echo" in seen["tools"] and not any("__" in name for name in seen["tools"])
    assert not any(name in seen["tools"] for name in ("greet", "add_tool")), "only the demo server's tools"
    assert seen["called"] == "over sse"


def test_the_transport_refuses_what_breaks_its_rules(gateway, yrden):
    gw = gateway(config(yrden))
    with httpx2.Client(timeout=10) as http:
        with http.stream("GET", f"{gw.base}/sse", headers={"Accept": "text/event-stream"}) as stream:
            assert stream.status_code == 200
            lines = stream.iter_lines()
            assert next(lines) == "event: endpoint"
            endpoint = next(lines)
            assert endpoint.startswith("data: /messages?sessionId=")
            path = endpoint.removeprefix("data: ")
            headers = {"Content-Type": "application/json"}
            assert http.post(f"{gw.base}{path}", content=b"not json", headers={"Content-Type": "text/plain"}).status_code == 415
            ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            assert http.post(f"{gw.base}{path}", json=ping, headers=headers).status_code == 202
            initialize = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "initialize",
                "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
            }
            assert http.post(f"{gw.base}{path}", json=initialize, headers=headers).status_code == 202
            answer = next(line for line in lines if line.startswith("data: {") and '"id":2' in line)
            assert json.loads(answer.removeprefix("data: "))["result"]["protocolVersion"] == "2024-11-05"
            assert sessions(gw) == 1
        # The stream was the session: closing it ends the session and forgets its id.
        wait_until(lambda: sessions(gw) == 0, 10, "the session ended with its stream")
        assert http.post(f"{gw.base}{path}", json=ping, headers=headers).status_code == 404
        unknown = http.post(f"{gw.base}/messages?sessionId=0123456789abcdef", json=ping, headers=headers)
        assert unknown.status_code == 404
        assert http.post(f"{gw.base}/messages", json=ping, headers=headers).status_code == 400
        foreign = http.get(f"{gw.base}/sse", headers={"Accept": "text/event-stream", "Origin": "https://evil.example"})
        assert foreign.status_code == 403


PROFILE_TOKEN = "team-client-token-31c9"


def ping(id: str) -> dict:
    return {"jsonrpc": "2.0", "id": id, "method": "ping"}


def test_a_post_feeds_only_a_stream_opened_on_its_own_endpoint(gateway, yrden):
    """A stream's session id is accepted on the messages path of the endpoint that opened it alone, under that
    endpoint's token rules: a profile's stream is not fed through the open aggregate `/messages`."""
    document = config(yrden)
    document["profiles"] = {"team": {"servers": ["demo"], "clientTokens": [PROFILE_TOKEN]}}
    gw = gateway(document)
    team = {"Authorization": f"Bearer {PROFILE_TOKEN}"}
    json_type = {"Content-Type": "application/json"}
    with httpx2.Client(timeout=10) as http:
        with http.stream("GET", f"{gw.base}/mcp/team/sse", headers={"Accept": "text/event-stream", **team}) as stream:
            assert stream.status_code == 200
            lines = stream.iter_lines()
            assert next(lines) == "event: endpoint"
            path = next(lines).removeprefix("data: ")
            assert path.startswith("/mcp/team/messages?sessionId=")
            query = path.split("?", 1)[1]
            for elsewhere in ("/messages", "/servers/demo/messages"):
                refused = http.post(f"{gw.base}{elsewhere}?{query}", json=ping(elsewhere), headers=json_type)
                assert refused.status_code == 404, (elsewhere, refused.status_code, refused.text)
            assert http.post(f"{gw.base}{path}", json=ping("no token"), headers=json_type).status_code == 401
            assert http.post(f"{gw.base}{path}", json=ping("own"), headers={**json_type, **team}).status_code == 202
            answer = next(line for line in lines if line.startswith("data: {"))
            assert json.loads(answer.removeprefix("data: "))["id"] == "own", "nothing refused reached the stream"
        with http.stream("GET", f"{gw.base}/sse", headers={"Accept": "text/event-stream"}) as stream:
            lines = stream.iter_lines()
            assert next(lines) == "event: endpoint"
            path = next(lines).removeprefix("data: ")
            assert path.startswith("/messages?sessionId=")
            query = path.split("?", 1)[1]
            into_profile = http.post(f"{gw.base}/mcp/team/messages?{query}", json=ping("x"), headers={**json_type, **team})
            assert into_profile.status_code == 404, into_profile.text
            assert http.post(f"{gw.base}{path}", json=ping("aggregate"), headers=json_type).status_code == 202
            answer = next(line for line in lines if line.startswith("data: {"))
            assert json.loads(answer.removeprefix("data: "))["id"] == "aggregate"
