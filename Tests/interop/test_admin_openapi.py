"""The running admin API against its contract, openapi.yaml: schemathesis drives every operation of a
throwaway gateway (examples, boundary cases, random and invalid data, and sequences that follow the spec's
links) and checks each answer's status code, content type, headers and body schema; the live event stream,
which schemathesis cannot read, is checked here against the `x-yrden-events` schemas.

This file is also the schemathesis hooks file of the run (`hooks` in the generated schemathesis.toml): it
registers ``rejected_only_for_documented_reasons``, the check that replaces schemathesis's "schema-valid data
must be accepted" for the operations whose bodies are judged by the config validator, whose rules go beyond
JSON Schema (the spec says so, and lists them).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jsonschema_rs
import pytest
import schemathesis
import yaml

from harness import INTEROP_DIR, PYTHON, REPO_ROOT, SAMPLE_SERVER, clean_env, free_port

TOKEN = "openapi-run-token-3d91"
# Random cases per operation in the fuzzing phase (the examples, coverage and stateful phases draw their own):
# the run takes about a minute alone on two cores, most of it schemathesis's own CPU.
EXAMPLES_PER_OPERATION = 10
RUN_TIMEOUT = 240  # this only stops a hung run
SEED = int(os.environ.get("YRDEN_SCHEMATHESIS_SEED", "20260504"))

# (completeServerAuth is also exempt from "schema-valid data is accepted": a well-formed redirect URL whose
# `state` names no pending sign-in is refused with 400, as the spec says.)
# Operations whose request body is a server entry or a config document: the gateway validates it exactly as
# `yrden check-config` validates a file, including the rules the spec states in prose.
CONFIG_BODY_OPERATIONS = {"createServer", "replaceServer", "replaceConfig", "patchServer", "putProfile"}
# Reasons for a 400 that the spec documents as beyond JSON Schema (openapi.yaml, `ServerEntry`).
DOCUMENTED_REJECTIONS = (
    "is not set",  # a ${VAR} naming an unset variable ("a reference to an unset variable ... is a 400")
    "is shorter than initialDelay",  # reconnect.maxDelay >= initialDelay
    "is both allowed and denied",  # tools.allow and tools.deny overlap
    "header names ignore case",  # header names unique ignoring case
    "is also used by server",  # prefix unique among the servers
    "exposes the admin API",  # a non-loopback listen needs an admin token
    "must be on loopback",  # gateway.oauthCallback is a loopback listener
    "contains the tool separator",  # the schema encodes the default separator only
    "there is no server",  # a profile's servers are servers of the document
    "there is no profile",  # limits.profiles names profiles of the document
    "are both renamed",  # a profile's new names are unique
    "holds the redaction mark",  # ******** sent back where no value is stored to keep
    "${",  # a value that breaks a rule only after its ${VAR} (anywhere in it) is expanded (the message quotes it)
    'clientMetadataURL "',  # CIMD's client_id rules beyond an http(s) URL: https, a path, no fragment
)


@schemathesis.check
def rejected_only_for_documented_reasons(ctx, response, case) -> None:
    """Schema-valid config bodies may be refused with 400 only for a rule the spec puts beyond JSON Schema;
    a PATCH only for its merged result (whose validity "is decided after merging")."""
    operation_id = case.operation.definition.raw.get("operationId")
    meta = case.meta
    if operation_id not in CONFIG_BODY_OPERATIONS or meta is None or not meta.generation.mode.is_positive:
        return None
    if response.status_code != 400:
        return None
    problem = json.loads(response.content)
    errors = problem.get("errors") or []
    if not errors:
        raise AssertionError(f"a schema-valid body was refused without errors[]: {problem}")
    if operation_id == "patchServer":
        return None
    undocumented = [e for e in errors if not any(reason in e["message"] for reason in DOCUMENTED_REJECTIONS)]
    if undocumented:
        raise AssertionError(f"a schema-valid body was refused for a rule the schema does not state: {undocumented}")
    return None


pytestmark = pytest.mark.timeout(RUN_TIMEOUT + 60)
SPEC_PATH = REPO_ROOT / "openapi.yaml"
# `${VAR}`s the spec's own examples use, so those examples are valid where the gateway runs.
EXAMPLE_ENV = {
    "SEARCH_TOKEN": "example-search-token",
    "TASKS_URL": "https://tasks.example.com/mcp",
    "MCP_URL": "https://example.com/mcp",
    "BASE_URL": "https://example.com",
    "TOKEN": "example-token",
    "YRDEN_ADMIN_TOKEN_VALUE": TOKEN,
}


def throwaway_config(yrden: Path, bin_dir: Path | None = None) -> dict[str, Any]:
    """`time` and `github-tools` are the ids the spec's examples use, so the example phase reaches real
    servers: a stdio server and an OAuth one (which this gateway cannot sign in to yet).

    With ``bin_dir``, the stdio servers are started through scripts there that ignore their arguments:
    drawn requests replace `args` (`["serve"]` would start a second gateway)."""
    demo: list[str] = [str(yrden), "demo-server"]
    sample: list[str] = [PYTHON, str(SAMPLE_SERVER)]
    if bin_dir is not None:
        demo, sample = [fixed_command(bin_dir, "demo", demo)], [fixed_command(bin_dir, "sample", sample)]
    return {
        "gateway": {"adminToken": "${YRDEN_ADMIN_TOKEN_VALUE}"},
        "mcpServers": {
            "time": {"command": demo[0], "args": demo[1:], "env": {"TZ": "UTC"}},
            "sample": {"command": sample[0], "args": sample[1:]},
            "github-tools": {
                "url": f"http://127.0.0.1:{free_port()}/mcp",
                "auth": {"type": "oauth", "scopes": ["repo"]},
                "reconnect": "never",
            },
        },
    }


def fixed_command(bin_dir: Path, name: str, argv: list[str]) -> str:
    """A script that runs ``argv`` whatever arguments it is given."""
    script = bin_dir / name
    script.write_text("#!/bin/sh\nexec " + " ".join(f"'{part}'" for part in argv) + "\n")
    script.chmod(0o755)
    return str(script)


@pytest.fixture
def throwaway(yrden: Path, gateway, tmp_path: Path):
    # Drawn entries name random commands: with an empty PATH none of them can start a real program.
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    servers_bin = tmp_path / "servers-bin"
    servers_bin.mkdir()
    return gateway(throwaway_config(yrden, servers_bin), env={**EXAMPLE_ENV, "PATH": str(empty_bin)})


def test_the_running_gateway_keeps_its_contract(throwaway, tmp_path: Path):
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        "\n".join(
            [
                f'hooks = "{Path(__file__).resolve()}"',
                # A drawn If-Match names no real version: 412 is the right answer to that valid request; a drawn
                # tool to approve has no change waiting: 404 or 409 is the right answer.
                "[[operations]]",
                'include-operation-id-regex = "^(createServer|replaceServer|replaceConfig|patchServer|deleteServer|completeServerAuth|approveTool|putProfile)$"',
                "checks.positive_data_acceptance.enabled = false",
                "",
            ]
        )
    )
    command = [
        str(Path(sys.executable).parent / "schemathesis"),
        "--config-file",
        str(config),
        "run",
        str(SPEC_PATH),
        "--url",
        throwaway.base,
        "--header",
        f"Authorization: Bearer {TOKEN}",
        "--exclude-path",
        "/api/v1/events",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--max-examples",
        str(EXAMPLES_PER_OPERATION),
        "--seed",
        str(SEED),
        "--request-timeout",
        "30",
        "--report",
        "junit",
        "--report-dir",
        str(tmp_path / "report"),
        "--no-color",
    ]
    env = clean_env({"PYTHONPATH": str(INTEROP_DIR)})
    run = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
    )
    output = run.stdout + run.stderr
    (tmp_path / "schemathesis.out").write_text(output)
    assert run.returncode == 0, f"schemathesis found the gateway breaking openapi.yaml:\n{output[-30000:]}"
    selected = re.search(r"Selected: (\d+)/(\d+)", output)
    assert selected, output[-3000:]
    assert int(selected[1]) == int(selected[2]) - 1 > 0, f"every operation but the event stream: {selected[0]}"


async def test_live_events_match_their_schemas(yrden: Path, gateway):
    gw = gateway(throwaway_config(yrden), env=EXAMPLE_ENV)
    spec = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    schemas = spec["paths"]["/api/v1/events"]["get"]["x-yrden-events"]
    validators = {
        name: jsonschema_rs.Draft202012Validator(
            {**ref, "components": spec["components"]}, validate_formats=True
        )
        for name, ref in schemas.items()
    }
    events: list[tuple[str, Any]] = []
    headers = {"Authorization": f"Bearer {TOKEN}"}
    api = f"{gw.base}/api/v1"
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(30.0, read=60.0), headers=headers) as http:

        async def read(opened: anyio.Event) -> None:
            async with http.stream("GET", f"{api}/events") as response:
                assert response.status_code == 200
                opened.set()
                name = None
                async for line in response.aiter_lines():
                    if line.startswith("event:"):
                        name = line[6:].strip()
                    elif line.startswith("data:"):
                        events.append((name, json.loads(line[5:])))

        async with anyio.create_task_group() as tg:
            opened = anyio.Event()
            tg.start_soon(read, opened)
            await opened.wait()
            entry = {"command": PYTHON, "args": [str(SAMPLE_SERVER)], "env": {"SECRET": "literal-value"}}
            created = await http.post(f"{api}/servers", json={"id": "extra", "config": entry})
            assert created.status_code == 201, created.text
            # A server that cannot start: its failure, its error and its scheduled retry in the events.
            broken = {"command": "/nonexistent/yrden-admin-test-server", "reconnect": {"initialDelay": 0.5}}
            created = await http.post(f"{api}/servers", json={"id": "broken", "config": broken})
            assert created.status_code == 201, created.text

            def seen(name: str, server: str, state: str | None = None) -> bool:
                for event, data in events:
                    subject = data.get("server") or {}
                    if event == name and server in (data.get("id"), subject.get("id")):
                        if state is None or subject.get("state") == state:
                            return True
                return False

            with anyio.fail_after(30):
                while not (seen("server.catalog", "extra") and seen("server.state", "broken", "failed")):
                    await anyio.sleep(0.1)
            await http.post(f"{api}/servers/extra/disconnect")
            for server_id in ("extra", "broken"):
                assert (await http.delete(f"{api}/servers/{server_id}")).status_code == 204
            with anyio.fail_after(10):
                while not (seen("server.removed", "extra") and seen("server.removed", "broken")):
                    await anyio.sleep(0.1)
            tg.cancel_scope.cancel()

    names = [name for name, _ in events]
    assert {"server.added", "server.state", "server.catalog", "server.removed"} <= set(names), names
    failed = [d["server"] for n, d in events if n == "server.state" and d["server"]["state"] == "failed"]
    assert any(f["lastError"]["kind"] == "process" and f["reconnect"]["nextRetryAt"] for f in failed), failed
    states = {d["server"]["state"] for n, d in events if n == "server.state"}
    assert {"connecting", "connected", "failed", "disconnected", "stopped"} <= states, states
    for name, data in events:
        assert name in validators, f"an event the spec does not list: {name}"
        errors = [str(e) for e in validators[name].iter_errors(data)]
        assert not errors, f"{name} does not match its schema: {errors}\n{json.dumps(data)[:2000]}"
    assert "literal-value" not in json.dumps(events), "an event carried a secret"
