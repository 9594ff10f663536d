"""Admin writes are linearizable: concurrent operators never leave the file and the running gateway apart.

Each test races real HTTP clients against one gateway over loopback and then checks what an operator would:
the server list, the config file on disk, and what a second read-modify-write client sees.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from harness import PYTHON, Gateway, await_until, is_running

TOKEN = "adm-concurrency-token"
ENV = {"CONCURRENCY_ADMIN_TOKEN": TOKEN}
PARALLEL_WRITES = 100
WORKERS = 10
RMW_CLIENTS = 30


def config(yrden: Path, **servers: dict[str, Any]) -> dict[str, Any]:
    return {"gateway": {"adminToken": "${CONCURRENCY_ADMIN_TOKEN}"}, "mcpServers": servers}


def demo_entry(yrden: Path) -> dict[str, Any]:
    return {"command": str(yrden), "args": ["demo-server"]}


def admin_client() -> httpx2.AsyncClient:
    limits = httpx2.Limits(max_connections=PARALLEL_WRITES + 10)
    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(60.0), headers={"Authorization": f"Bearer {TOKEN}"}, limits=limits
    )


def servers_in_file(gw: Gateway) -> dict[str, Any]:
    return json.loads(gw.config_path.read_text()).get("mcpServers") or {}


@pytest.mark.anyio
async def test_parallel_add_and_remove_of_one_id_end_with_file_and_gateway_agreeing(gateway, yrden) -> None:
    gw = gateway(config(yrden, racer=demo_entry(yrden)), env=ENV)
    api = f"{gw.base}/api/v1"
    statuses: list[tuple[str, int]] = []
    async with admin_client() as http:

        async def add() -> None:
            response = await http.post(f"{api}/servers", json={"id": "racer", "config": demo_entry(yrden)})
            statuses.append(("POST", response.status_code))

        async def remove() -> None:
            response = await http.delete(f"{api}/servers/racer")
            statuses.append(("DELETE", response.status_code))

        async def worker(first: int) -> None:
            for step in range(PARALLEL_WRITES // WORKERS):
                await (add if (first + step) % 2 == 0 else remove)()

        # Workers alternate add and remove, half of them starting with each, so writes overlap all along.
        async with anyio.create_task_group() as group:
            for index in range(WORKERS):
                group.start_soon(worker, index)

        listed = {s["id"] for s in (await http.get(f"{api}/servers")).json()["servers"]}
        single = await http.get(f"{api}/servers/racer")
        in_config = "racer" in ((await http.get(f"{api}/config")).json()["mcpServers"])
    added = sum(1 for method, status in statuses if (method, status) == ("POST", 201))
    removed = sum(1 for method, status in statuses if (method, status) == ("DELETE", 204))
    print(f"\n{PARALLEL_WRITES} parallel writes: {added} added, {removed} removed, the rest refused")
    assert {status for method, status in statuses if method == "POST"} <= {201, 409}, statuses
    assert {status for method, status in statuses if method == "DELETE"} <= {204, 404}, statuses
    # One change at a time: successful removes and adds of one id (present at start) alternate.
    assert removed - added in (0, 1), f"{added} adds and {removed} removes acknowledged"
    present = removed == added
    assert ("racer" in listed) == present, f"list {sorted(listed)}, {added} adds, {removed} removes"
    assert (single.status_code == 200) == present, single.text
    assert in_config == present
    assert ("racer" in servers_in_file(gw)) == present, gw.config_path.read_text()


@pytest.mark.anyio
async def test_read_modify_write_clients_lose_no_acknowledged_change(gateway, yrden) -> None:
    gw = gateway(config(yrden), env=ENV)
    api = f"{gw.base}/api/v1"
    refused = 0
    async with admin_client() as http:

        async def add_own_server(index: int) -> None:
            nonlocal refused
            while True:
                read = await http.get(f"{api}/config")
                assert read.status_code == 200 and read.headers.get("etag"), read.headers
                document = read.json()
                document["mcpServers"][f"rmw{index}"] = {"command": "true", "disabled": True}
                written = await http.put(f"{api}/config", json=document, headers={"If-Match": read.headers["etag"]})
                if written.status_code == 200:
                    assert written.headers.get("etag") and written.headers["etag"] != read.headers["etag"]
                    return
                assert written.status_code == 412, written.text
                assert written.headers["content-type"].startswith("application/problem+json")
                refused += 1

        with anyio.fail_after(120):
            async with anyio.create_task_group() as group:
                for index in range(RMW_CLIENTS):
                    group.start_soon(add_own_server, index)
        final = (await http.get(f"{api}/config")).json()["mcpServers"]
    print(f"\n{RMW_CLIENTS} read-modify-write clients: {refused} writes refused with 412 and retried")
    wanted = {f"rmw{index}" for index in range(RMW_CLIENTS)}
    assert wanted <= set(final), f"lost: {sorted(wanted - set(final))}"
    assert wanted <= set(servers_in_file(gw))


@pytest.mark.anyio
async def test_if_match_decides_a_config_write(gateway, yrden) -> None:
    gw = gateway(config(yrden, demo=demo_entry(yrden)), env=ENV)
    api = f"{gw.base}/api/v1"
    async with admin_client() as http:
        first = await http.get(f"{api}/config")
        etag = first.headers["etag"]
        assert etag.startswith('"') and etag.endswith('"'), etag
        assert (await http.get(f"{api}/config")).headers["etag"] == etag, "an unchanged config keeps its ETag"
        document = first.json()
        document["mcpServers"]["extra"] = {"command": "true", "disabled": True}
        # Anything but the current version is refused and changes nothing.
        for stale in ('"not-the-etag"', f"W/{etag}"):
            refused = await http.put(f"{api}/config", json=document, headers={"If-Match": stale})
            assert refused.status_code == 412, refused.text
            problem = refused.json()
            assert problem["status"] == 412 and "If-Match" in problem["detail"], problem
            assert refused.headers["etag"] == etag
        assert "extra" not in servers_in_file(gw)
        # A request that is wrong anyway says so first: the precondition is judged only on a valid change.
        invalid_document = {"mcpServers": {"x": {"command": 3}}}
        invalid = await http.put(f"{api}/config", json=invalid_document, headers={"If-Match": '"x"'})
        assert invalid.status_code == 400, invalid.text
        # The current version, in a list or as `*`, is accepted.
        written = await http.put(f"{api}/config", json=document, headers={"If-Match": f'"other", {etag}'})
        assert written.status_code == 200, written.text
        assert "extra" in servers_in_file(gw)
        assert (await http.get(f"{api}/config")).headers["etag"] == written.headers["etag"] != etag
        again = await http.put(f"{api}/config", json=document, headers={"If-Match": "*"})
        assert again.status_code == 200, again.text
        # The old ETag is stale now, and a change through another path makes the current one stale too.
        stale = await http.put(f"{api}/config", json=document, headers={"If-Match": etag})
        assert stale.status_code == 412
        current = (await http.get(f"{api}/config")).headers["etag"]
        patched = await http.patch(
            f"{api}/servers/extra",
            content=json.dumps({"args": ["x"]}),
            headers={"Content-Type": "application/merge-patch+json"},
        )
        assert patched.status_code == 200, patched.text
        assert (await http.put(f"{api}/config", json=document, headers={"If-Match": current})).status_code == 412


@pytest.mark.anyio
@pytest.mark.parametrize("servers", [None, [], "demo", 3])
async def test_a_config_whose_servers_are_not_an_object_is_refused(gateway, yrden, servers) -> None:
    gw = gateway(config(yrden, demo=demo_entry(yrden)), env=ENV)
    before = gw.config_path.read_text()
    async with admin_client() as http:
        response = await http.put(f"{gw.base}/api/v1/config", json={"mcpServers": servers})
        listed = [s["id"] for s in (await http.get(f"{gw.base}/api/v1/servers")).json()["servers"]]
    assert response.status_code == 400, response.text
    problem = response.json()
    assert [e["path"] for e in problem["errors"]] == ["mcpServers"], problem
    assert gw.config_path.read_text() == before
    assert listed == ["demo"]


def test_leftover_temporary_files_of_a_crashed_writer_are_removed_at_start(gateway, yrden, tmp_path) -> None:
    workdir = tmp_path / "gateway0"  # where the gateway fixture starts its first gateway
    workdir.mkdir()
    dead_pid = 4_000_000  # above the kernel's pid limit: no process has it
    leftovers = [workdir / f".yrden.json.tmp-{dead_pid}-{suffix}" for suffix in ("1a2b", "ffff0000")]
    for leftover in leftovers:
        leftover.write_text('{"mcpServers": {"half": ')
    # A temporary file of a writer that is still running is not ours to remove, nor is another file's.
    live = workdir / f".yrden.json.tmp-{os.getpid()}-77"
    live.write_text("{}")
    other = workdir / f".other.json.tmp-{dead_pid}-1"
    other.write_text("{}")
    gw = gateway(config(yrden, demo=demo_entry(yrden)), env=ENV)
    assert gw.workdir == workdir
    assert [p.name for p in leftovers if p.exists()] == []
    assert live.exists() and other.exists()
    assert "removed a temporary file" in gw.log_text()


# A stdio MCP server that ignores SIGTERM and outlives its stdin: only SIGKILL, 7 s into the stop sequence
# (stdin closed, SIGTERM after 2 s, SIGKILL after 5 s more), ends it.
STUBBORN_SERVER = r"""
import json, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "stubborn", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": []}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
while True:
    time.sleep(1)
"""
STOP_SEQUENCE_SECONDS = 7.0


@pytest.mark.anyio
async def test_servers_leaving_one_config_write_stop_together_within_the_limit(gateway, yrden, tmp_path) -> None:
    script = tmp_path / "stubborn_server.py"
    script.write_text(STUBBORN_SERVER)
    stubborn = {f"stubborn{n}": {"command": PYTHON, "args": [str(script), f"--n={n}"]} for n in range(3)}
    gw = gateway(config(yrden, **stubborn), env=ENV)
    children = [gw.child(f"--n={n}") for n in range(3)]
    assert all(children), [p.command for p in gw.children()]
    async with admin_client() as http:
        started = time.monotonic()
        response = await http.put(f"{gw.base}/api/v1/config", json=config(yrden))
        seconds = time.monotonic() - started
    print(f"\nPUT /config removing 3 servers that need SIGKILL: {response.status_code} after {seconds:.1f} s")
    assert response.status_code == 200, response.text
    assert sorted(response.json()["changes"]["removed"]) == sorted(stubborn)
    # One after another they would take 3 x 7 s; together they take one stop sequence, within the 10 s limit.
    assert seconds < 2 * STOP_SEQUENCE_SECONDS, f"the stops took {seconds:.1f} s"
    assert not any(is_running(child.pid) for child in children)


@pytest.mark.anyio
async def test_edits_of_the_file_take_their_turn_with_api_writes(gateway, yrden) -> None:
    gw = gateway(config(yrden, demo=demo_entry(yrden)), env=ENV)
    api = f"{gw.base}/api/v1"

    def edit_file(**servers: dict[str, Any]) -> None:
        document = json.loads(gw.config_path.read_text())
        document["mcpServers"].update(servers)
        temporary = gw.config_path.with_name("edit.tmp")
        temporary.write_text(json.dumps(document, indent=2))
        os.replace(temporary, gw.config_path)

    async with admin_client() as http:
        # API writes go on while the file is edited; the watcher's reload waits for its turn and applies it.
        edit_file(edited={"command": "true", "disabled": True})
        for n in range(20):
            entry = {"command": "true", "disabled": True}
            added = await http.post(f"{api}/servers", json={"id": f"api{n}", "config": entry})
            assert added.status_code == 201, added.text

        async def edited_server_is_served() -> bool:
            return (await http.get(f"{api}/servers/edited")).status_code == 200

        await await_until(edited_server_is_served, 15, interval=0.2, what="the edited-in server")
        listed = {s["id"] for s in (await http.get(f"{api}/servers")).json()["servers"]}
        assert listed == set(servers_in_file(gw)), f"gateway {sorted(listed)}, file {sorted(servers_in_file(gw))}"
        # SIGHUP applies the file the same way.
        edit_file(hup={"command": "true", "disabled": True})
        gw.proc.send_signal(signal.SIGHUP)

        async def hup_server_is_served() -> bool:
            return (await http.get(f"{api}/servers/hup")).status_code == 200

        await await_until(hup_server_is_served, 15, interval=0.2, what="the server added before SIGHUP")


@pytest.mark.anyio
async def test_an_api_write_does_not_overwrite_a_file_edit_that_does_not_validate(gateway, yrden) -> None:
    gw = gateway(config(yrden, demo=demo_entry(yrden)), env=ENV)
    api = f"{gw.base}/api/v1"
    broken = gw.config_path.read_text().replace('"demo-server"', '"demo-server",')  # a trailing comma
    gw.config_path.write_text(broken)
    async with admin_client() as http:
        refused = await http.post(f"{api}/servers", json={"id": "late", "config": {"command": "true"}})
        assert refused.status_code == 409, refused.text
        assert str(gw.config_path) in refused.json()["detail"] and "check-config" in refused.json()["detail"]
        assert gw.config_path.read_text() == broken, "the operator's edit was overwritten"
        gw.config_path.write_text(broken.replace('"demo-server",', '"demo-server"'))
        accepted = await http.post(f"{api}/servers", json={"id": "late", "config": {"command": "true"}})
        assert accepted.status_code == 201, accepted.text
    assert set(servers_in_file(gw)) == {"demo", "late"}
