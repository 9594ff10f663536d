"""The admin API contract, ``openapi.yaml``: a valid OpenAPI 3.1 document that keeps the invariants a reviewer
checks, and whose server entries and config documents are judged the way the config file is judged.

The referee for the last part is the gateway itself: ``yrden check-config`` on the same JSON. Hand-written
cases pin each rule; requests drawn by schemathesis (the tool that will check the running server against this
contract) must be accepted when the schema says they are valid, and refused when it says they are not, apart
from the rules the spec documents as beyond JSON Schema.
"""

from __future__ import annotations

import json
import re
import subprocess
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from openapi_spec_validator import validate as validate_openapi
from schemathesis import GenerationMode

from harness import REPO_ROOT, clean_env

SPEC_PATH = REPO_ROOT / "openapi.yaml"
README_PATH = REPO_ROOT / "README.md"

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
ADMIN_PREFIX = "/api/v1/"
OPS_PATHS = {"/healthz", "/readyz", "/metrics"}
TAGS = {"servers", "catalog", "logs", "config", "auth", "ops", "profiles"}
PROBLEM = "application/problem+json"
PROBLEM_REF = "#/components/schemas/Problem"

CHECK_TIMEOUT = 30
# The environment `yrden check-config` sees in the hand-written cases: `${...}` that must expand.
CASE_ENV = {"TEST_MCP_URL": "https://example.com/mcp", "TEST_BIN_DIR": "/usr/bin", "TEST_HOST": "127.0.0.1"}
# Bodies drawn per operation and mode. Drawing is most of these tests' time (hypothesis over the entry schemas):
# 60 keeps every branch of the body schemas drawn while the file stays under a minute of CPU.
EXAMPLES_PER_OPERATION = 60

# Problems `yrden check-config` reports for rules the spec states in prose because JSON Schema cannot
# express them (comparisons between fields, uniqueness across servers, effective settings after YRDEN_*
# overrides, a non-default tool separator). A drawn request that breaks only these is no contract error.
BEYOND_JSON_SCHEMA = (
    "is shorter than initialDelay",  # reconnect.maxDelay >= initialDelay
    "is both allowed and denied",  # tools.allow and tools.deny overlap
    "header names ignore case",  # header names unique ignoring case
    "is also used by server",  # prefix unique among the servers
    "exposes the admin API",  # a non-loopback listen needs an admin token
    "must be on loopback",  # gateway.oauthCallback is a loopback listener
    "contains the tool separator",  # the schema encodes the default separator only
    "there is no server",  # a profile's servers are servers of the document
    "are both renamed",  # a profile's new names are unique
    "there is no profile",  # limits.profiles name profiles of the document
    'clientMetadataURL "',  # CIMD's client_id rules beyond an http(s) URL: https, a path, no fragment
)


# ---------------------------------------------------------------------------
# Reading the spec


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    with SPEC_PATH.open(encoding="utf-8") as f:
        return yaml.safe_load(f)


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(path, method, operation, path item) for every operation."""
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method], item


def resolve(spec: dict[str, Any], node: Any) -> Any:
    """Follows local `$ref`s until a node that is not a reference."""
    seen = set()
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/"), f"only local references are expected, found {ref}"
        assert ref not in seen, f"reference cycle at {ref}"
        seen.add(ref)
        node = spec
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def refs(node: Any, where: str = "#") -> Iterator[tuple[str, str]]:
    """Every `$ref` in the document with where it sits."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield where, value
            else:
                yield from refs(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from refs(value, f"{where}/{index}")


def schema_validator(spec: dict[str, Any], schema: dict[str, Any]) -> jsonschema_rs.Validator:
    """A JSON Schema 2020-12 validator (OpenAPI 3.1's dialect) for `schema`, with the spec's components."""
    return jsonschema_rs.Draft202012Validator({**schema, "components": spec["components"]}, validate_formats=True)


def component_validator(spec: dict[str, Any], name: str) -> jsonschema_rs.Validator:
    return schema_validator(spec, {"$ref": f"#/components/schemas/{name}"})


def effective_security(spec: dict[str, Any], operation: dict[str, Any]) -> list[dict[str, list[str]]]:
    return operation.get("security", spec.get("security", []))


# ---------------------------------------------------------------------------
# The document and the invariants


def test_the_spec_is_valid_openapi_3_1(spec):
    assert spec["openapi"].startswith("3.1."), spec["openapi"]
    validate_openapi(spec)
    assert spec["servers"][0]["url"] == "http://127.0.0.1:8750"
    assert "405" in spec["info"]["description"], "info must say that 405 is answered for every path"


def test_every_operation_has_a_unique_lower_camel_case_id_and_a_known_tag(spec):
    ids = [op.get("operationId") for _, _, op, _ in operations(spec)]
    assert all(ids), [f"{m.upper()} {p}" for p, m, op, _ in operations(spec) if not op.get("operationId")]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert [i for i in ids if not re.fullmatch(r"[a-z][A-Za-z0-9]*", i)] == []
    untagged = [f"{m.upper()} {p}" for p, m, op, _ in operations(spec) if len(op.get("tags", [])) != 1]
    assert untagged == []
    assert {op["tags"][0] for _, _, op, _ in operations(spec)} == TAGS


def test_every_path_is_an_admin_path_or_an_ops_endpoint(spec):
    assert [p for p in spec["paths"] if not p.startswith(ADMIN_PREFIX) and p not in OPS_PATHS] == []
    assert OPS_PATHS <= set(spec["paths"])


def test_admin_operations_require_the_bearer_token_and_document_401(spec):
    scheme = spec["components"]["securitySchemes"]["bearer"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    assert "YRDEN_ADMIN_TOKEN" in scheme["description"] and "adminToken" in scheme["description"]
    problems = []
    for path, method, op, _ in operations(spec):
        name = f"{method.upper()} {path}"
        if path in OPS_PATHS:
            if effective_security(spec, op) != []:
                problems.append(f"{name}: ops endpoints take no token")
            if "401" in op["responses"]:
                problems.append(f"{name}: ops endpoints never answer 401")
            continue
        if effective_security(spec, op) != [{"bearer": []}]:
            problems.append(f"{name}: security is {effective_security(spec, op)}")
        unauthorized = resolve(spec, op["responses"].get("401"))
        if unauthorized is None:
            problems.append(f"{name}: no 401 response")
            continue
        header = resolve(spec, unauthorized.get("headers", {}).get("WWW-Authenticate"))
        if not header or not header.get("required") or not re.match(header["schema"]["pattern"], "Bearer"):
            problems.append(f"{name}: 401 without a required `WWW-Authenticate: Bearer` header")
    assert problems == []


def test_every_path_parameter_is_declared(spec):
    problems = []
    for path, method, op, item in operations(spec):
        in_template = set(re.findall(r"\{([^}]+)\}", path))
        declared = {}
        for parameter in [*item.get("parameters", []), *op.get("parameters", [])]:
            parameter = resolve(spec, parameter)
            if parameter["in"] == "path":
                declared[parameter["name"]] = parameter
        name = f"{method.upper()} {path}"
        if set(declared) != in_template:
            problems.append(f"{name}: template has {sorted(in_template)}, declared {sorted(declared)}")
        problems += [f"{name}: path parameter {n} is optional" for n, p in declared.items() if not p.get("required")]
        # Every path parameter is a server id, but a tool's name (approving a tool definition) and a profile's.
        expected = {"id": "ServerId", "name": "ProfileName" if path.startswith("/api/v1/profiles/") else "ToolName"}
        problems += [
            f"{name}: path parameter {n} is not the {expected.get(n, 'ServerId')} schema"
            for n, p in declared.items()
            if p["schema"] != {"$ref": f"#/components/schemas/{expected.get(n, 'ServerId')}"}
        ]
    assert problems == []


def test_every_ref_resolves(spec):
    found = list(refs(spec))
    assert len(found) > 100  # the spec is built from components; a handful would mean inline schemas
    broken = []
    for where, ref in found:
        try:
            target = resolve(spec, {"$ref": ref})
        except (KeyError, TypeError, AssertionError) as error:
            broken.append(f"{where}: {ref} ({error!r})")
            continue
        if not isinstance(target, dict):
            broken.append(f"{where}: {ref} is not an object")
    assert broken == []


def test_server_id_pattern_is_the_one_in_the_readme(spec):
    readme = README_PATH.read_text(encoding="utf-8")
    match = re.search(r"Server ids are\s+`([^`]+)`", readme)
    assert match, f"{README_PATH} no longer states the server id pattern"
    expected = f"^{match.group(1)}$"
    assert spec["components"]["schemas"]["ServerId"]["pattern"] == expected
    location = spec["components"]["headers"]["ServerLocation"]["schema"]["pattern"]
    assert location == f"^/api/v1/servers/{match.group(1)}$"


def test_operations_list_their_error_responses(spec):
    problems = []
    for path, method, op, _ in operations(spec):
        name = f"{method.upper()} {path}"
        codes = set(op["responses"])
        if "requestBody" in op:
            problems += [f"{name}: no {c}" for c in ("400", "413", "415") if c not in codes]
        if "{id}" in path:
            problems += [f"{name}: no 404 for an unknown id"] if "404" not in codes else []
        if any(resolve(spec, p).get("in") == "query" for p in op.get("parameters", [])) and "400" not in codes:
            problems.append(f"{name}: query parameters but no 400")
        for code, response in op["responses"].items():
            if not code.startswith(("4", "5")) or path in OPS_PATHS:
                continue
            content = resolve(spec, response).get("content", {})
            if list(content) != [PROBLEM] or content[PROBLEM]["schema"] != {"$ref": PROBLEM_REF}:
                problems.append(f"{name} {code}: not an application/problem+json Problem")
    assert problems == []


def test_conflicts_are_documented_where_the_contract_names_them(spec):
    expectations = {
        ("post", "/api/v1/servers"): "already exists",
        ("post", "/api/v1/servers/{id}/connect"): "disabled",
        ("post", "/api/v1/servers/{id}/auth"): "does not use OAuth",
        ("delete", "/api/v1/servers/{id}/tokens"): "does not use OAuth",
        ("put", "/api/v1/config"): "needs a restart",
    }
    for (method, path), words in expectations.items():
        conflict = spec["paths"][path][method]["responses"]["409"]
        assert words in conflict["description"], f"{method.upper()} {path} 409: {conflict['description']!r}"


def test_bodies_and_responses_use_component_schemas(spec):
    inline = []
    for path, method, op, _ in operations(spec):
        name = f"{method.upper()} {path}"
        bodies = [("request", m) for m in op.get("requestBody", {}).get("content", {}).values()]
        for code, response in op["responses"].items():
            bodies += [(code, m) for m in resolve(spec, response).get("content", {}).values()]
        for where, media in bodies:
            schema = media["schema"]
            if "$ref" not in schema and schema.get("type") != "string":
                inline.append(f"{name} {where}: inline {schema}")
    assert inline == []


def test_media_types_and_headers_of_the_contract(spec):
    paths = spec["paths"]
    created = paths["/api/v1/servers"]["post"]["responses"]["201"]
    assert resolve(spec, created["headers"]["Location"])["required"] is True
    assert list(paths["/api/v1/servers/{id}"]["patch"]["requestBody"]["content"]) == ["application/merge-patch+json"]
    assert list(paths["/api/v1/events"]["get"]["responses"]["200"]["content"]) == ["text/event-stream"]
    assert list(paths["/metrics"]["get"]["responses"]["200"]["content"]) == ["text/plain; version=0.0.4"]
    events = paths["/api/v1/events"]["get"]
    assert set(events["x-yrden-events"]) == {
        "server.added",
        "server.removed",
        "server.state",
        "server.catalog",
        "auth.progress",
        "tool.changed",
        "tool.reverted",
        "tool.approved",
        "events.missed",
    }
    assert all(name in events["description"] for name in events["x-yrden-events"])
    assert ": keepalive" in events["description"]
    logs = {resolve(spec, p)["name"]: resolve(spec, p) for p in paths["/api/v1/logs"]["get"]["parameters"]}
    assert set(logs) == {"server", "level", "since", "limit"}
    assert logs["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}


def test_the_shapes_the_contract_fixes(spec):
    schemas = spec["components"]["schemas"]
    server = schemas["Server"]
    assert server["additionalProperties"] is False
    assert set(server["required"]) == set(server["properties"]), "every key of Server is always present"
    assert schemas["ConnectionState"]["enum"] == [
        "idle",
        "connecting",
        "authenticating",
        "connected",
        "disconnected",
        "failed",
        "disabled",
        "stopped",
    ]
    assert schemas["UpstreamErrorInfo"]["properties"]["kind"]["enum"] == [
        "network",
        "http",
        "protocol",
        "timeout",
        "process",
        "auth",
        "cancelled",
        "notConnected",
        "config",
    ]
    statuses = []
    for branch in schemas["AuthProgress"]["oneOf"]:
        status = resolve(spec, branch)["properties"]["status"]
        statuses += status.get("enum", [status.get("const")])
    assert sorted(statuses) == sorted(
        ["discovering", "registering", "waitingForUser", "exchangingCode", "complete", "failed", "needsReauth"]
    )
    assert schemas["LogLevel"]["enum"] == ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    assert schemas["NewServer"]["required"] == ["id", "config"]
    assert schemas["NewServer"]["additionalProperties"] is False
    for name in ("StdioServerEntry", "RemoteServerEntry"):
        entry = schemas[name]
        assert entry["additionalProperties"] is False
        assert set(entry["properties"]) == {
            "command", "args", "env", "cwd", "url", "headers", "auth", "type",
            "prefix", "tools", "timeouts", "reconnect", "protocol", "disabled",
            # desktop hosts' keys, mapped or ignored
            "serverUrl", "transportType", "timeout", "disabledTools", "autoApprove", "alwaysAllow", "envFile", "dev",
        }  # fmt: skip


def test_examples_are_valid_and_given_where_the_contract_asks(spec):
    schemas = spec["components"]["schemas"]
    for name in ("Server", "NewServer", "Problem"):
        assert schemas[name].get("examples"), f"{name} has no examples"
    invalid = []
    for name, schema in schemas.items():
        validator = component_validator(spec, name)
        for index, example in enumerate(schema.get("examples", [])):
            if not validator.is_valid(example):
                messages = "; ".join(error.message for error in validator.iter_errors(example))
                invalid.append(f"{name} example {index}: {messages}")
    for path, method, op, _ in operations(spec):
        for code, response in op["responses"].items():
            for media_type, media in resolve(spec, response).get("content", {}).items():
                if "example" in media and not schema_validator(spec, media["schema"]).is_valid(media["example"]):
                    invalid.append(f"{method.upper()} {path} {code} {media_type} example")
    assert invalid == []


def test_redaction_is_documented_on_the_entry_schema(spec):
    text = spec["components"]["schemas"]["ServerEntry"]["description"]
    for words in ("`env`", "`headers`", "`auth.clientSecret`", "********", "${VAR}"):
        assert words in text


# ---------------------------------------------------------------------------
# Judged like the config file: `yrden check-config` is the referee


def check_config(yrden: Path, documents: list[Any], workdir: Path, env: dict[str, str]) -> list[tuple[int, str]]:
    """(exit code, output) of `yrden check-config` for each document, run a few at a time."""
    workdir.mkdir(parents=True, exist_ok=True)
    environment = clean_env(env)

    def run(index_and_document: tuple[int, Any]) -> tuple[int, str]:
        index, document = index_and_document
        path = workdir / f"config-{index}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        proc = subprocess.run(
            [str(yrden), "check-config", str(path)],
            cwd=workdir,
            env=environment,
            capture_output=True,
            text=True,
            timeout=CHECK_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode in (0, 2), f"check-config crashed ({proc.returncode}): {proc.stderr}"
        return proc.returncode, (proc.stdout + proc.stderr).replace(f"{path}: ", "")

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(run, enumerate(documents)))


def show(document: Any) -> str:
    return json.dumps(document, ensure_ascii=True)[:400]


URL = "https://example.com/mcp"

# (entry, valid?) - each rule of the config decoder, on both sides of its line.
ENTRIES: list[tuple[dict[str, Any], bool]] = [
    ({"command": "python3", "args": ["-m", "mcp_server_time"], "env": {"TZ": "UTC"}, "cwd": "/tmp"}, True),
    ({"command": "/opt/my tools/server"}, True),
    ({"command": "${TEST_BIN_DIR}/python3"}, True),
    ({"command": "  python3  "}, True),
    ({"command": "x", "url": None, "headers": None, "auth": None, "args": None, "env": None, "cwd": None}, True),
    ({"command": "x", "type": "stdio", "reconnect": "never", "disabled": True}, True),
    ({"command": "x", "prefix": "ab-c_9", "tools": {"allow": ["t"], "deny": ["u"]}}, True),
    ({"command": "x", "timeouts": {"connect": 0.5, "request": 31536000, "toolCall": None}}, True),
    ({"command": "x", "reconnect": {"initialDelay": 60}}, True),
    ({"command": "x", "reconnect": {"maxDelay": 1, "maxAttempts": 1}}, True),
    ({"command": "x", "reconnect": {"maxAttempts": 2.0}}, True),
    ({"command": "x", "env": {"A-B.c": "", "PATH": "/bin"}}, True),
    ({"url": URL}, True),
    ({"url": "HTTP://user:pw@example.com:65535/a?b#c"}, True),
    ({"url": "http://[::1]:8080/mcp"}, True),
    ({"url": "http://host:"}, True),
    ({"url": "${TEST_MCP_URL}"}, True),
    ({"url": "https://${TEST_HOST}/mcp"}, True),
    ({"url": URL, "type": "http"}, True),
    ({"url": URL, "type": "streamable-http"}, True),
    ({"url": URL, "type": "streamableHttp"}, True),
    ({"url": URL, "type": "sse", "command": None, "args": None}, True),
    ({"url": URL, "headers": {"X-Api-Key": "k", "Authorization": "Bearer t"}}, True),
    ({"url": URL, "headers": {"X-Api-Key": "k"}, "auth": {"type": "oauth"}}, True),
    ({"url": URL, "auth": {"type": "none"}}, True),
    ({"url": URL, "auth": {"type": "none", "scopes": None}}, True),
    (
        {
            "url": URL,
            "auth": {"type": "oauth", "scopes": ["a", "b:c"], "clientId": "i", "clientSecret": "s", "redirectPort": 1},
        },
        True,
    ),
    ({"url": URL, "auth": {"type": "oauth", "clientId": "i", "redirectPort": 65535}}, True),
    ({}, False),
    ({"args": ["a"]}, False),
    ({"command": "x", "url": URL}, False),
    ({"command": "python3 -m mcp_server_time"}, False),
    ({"command": ""}, False),
    ({"command": 42}, False),
    ({"command": "x", "comand": "y"}, False),
    ({"command": "x", "prefix": "a.b"}, False),
    ({"command": "x", "headers": {"A": "b"}}, False),
    ({"command": "x", "auth": {"type": "none"}}, False),
    ({"url": URL, "env": {"A": "b"}}, False),
    ({"url": URL, "args": []}, False),
    ({"url": "ftp://example.com"}, False),
    ({"url": "example.com/mcp"}, False),
    ({"url": "http://"}, False),
    ({"url": "http://:80/"}, False),
    ({"url": "http://host:99999"}, False),
    ({"url": "http://host:8a"}, False),
    ({"url": "http://host/a b"}, False),
    ({"url": "http://host/\u0085"}, False),
    ({"url": "http://[::1"}, False),
    ({"url": "http://[::1]x/"}, False),
    ({"url": ""}, False),
    ({"command": "x", "type": "http"}, False),
    ({"url": URL, "type": "stdio"}, False),
    ({"url": URL, "type": "grpc"}, False),
    ({"url": URL, "auth": {"type": "oauth", "clientSecret": "s"}}, False),
    ({"url": URL, "auth": {"type": "oauth", "clientSecret": "s", "clientId": None}}, False),
    ({"url": URL, "auth": {"type": "none", "scopes": ["a"]}}, False),
    ({"url": URL, "auth": {"scopes": ["a"]}}, False),
    ({"url": URL, "auth": {"type": "oauth", "scopes": ["a b"]}}, False),
    ({"url": URL, "auth": {"type": "oauth", "scopes": [""]}}, False),
    ({"url": URL, "auth": {"type": "oauth", "clientId": ""}}, False),
    ({"url": URL, "auth": {"type": "oauth", "redirectPort": 0}}, False),
    ({"url": URL, "auth": {"type": "oauth", "redirectPort": 65536}}, False),
    ({"url": URL, "auth": {"type": "basic"}}, False),
    ({"url": URL, "headers": {"authorization": "Bearer x"}, "auth": {"type": "oauth"}}, False),
    ({"url": URL, "headers": {"Bad Name": "x"}}, False),
    ({"url": URL, "headers": {"A": "x\r\ny"}}, False),
    ({"url": URL, "headers": {"A": None}}, False),
    ({"command": "x", "env": {"A=B": "1"}}, False),
    ({"command": "x", "env": {"": "1"}}, False),
    ({"command": "x", "env": {"A": 1}}, False),
    ({"command": "x", "args": ["a", 1]}, False),
    ({"command": "x", "cwd": ""}, False),
    ({"command": "x", "timeouts": {"connect": 0}}, False),
    ({"command": "x", "timeouts": {"connect": -1}}, False),
    ({"command": "x", "timeouts": {"request": 31536001}}, False),
    ({"command": "x", "timeouts": {"toolCall": "10"}}, False),
    ({"command": "x", "timeouts": {"idle": 10}}, False),
    ({"command": "x", "reconnect": "always"}, False),
    ({"command": "x", "reconnect": 5}, False),
    ({"command": "x", "reconnect": {"maxAttempts": 0}}, False),
    ({"command": "x", "reconnect": {"maxAttempts": 1.5}}, False),
    ({"command": "x", "reconnect": {"initialDelay": 61}}, False),
    ({"command": "x", "reconnect": {"maxDelay": 0.5}}, False),
    ({"command": "x", "reconnect": {"backoff": 2}}, False),
    ({"command": "x", "prefix": "Bad"}, False),
    ({"command": "x", "prefix": "a__b"}, False),
    ({"command": "x", "prefix": "-a"}, False),
    ({"command": "x", "prefix": "a" * 64}, False),
    ({"command": "x", "tools": {"allow": [""]}}, False),
    ({"command": "x", "tools": {"block": []}}, False),
    ({"command": "x", "disabled": "yes"}, False),
    # Desktop hosts' own keys: mapped onto Yrden's, or ignored; each mapped key excludes the key it stands for.
    ({"command": "x", "timeout": 60, "transportType": "stdio", "autoApprove": ["t"], "alwaysAllow": []}, True),
    ({"command": "x", "envFile": ".env", "dev": {"watch": "*.py"}, "disabledTools": ["t"]}, True),
    ({"url": URL, "transportType": "sse", "timeout": 0.001}, True),
    ({"serverUrl": URL}, True),
    ({"serverUrl": URL, "url": None, "transportType": "streamableHttp"}, True),
    ({"command": "x", "timeout": 5, "timeouts": {"toolCall": 5}}, False),
    ({"command": "x", "timeout": 0}, False),
    ({"command": "x", "type": "stdio", "transportType": "stdio"}, False),
    ({"command": "x", "transportType": "sse"}, False),
    ({"command": "x", "serverUrl": URL}, False),
    ({"url": URL, "serverUrl": URL}, False),
    ({"serverUrl": "example.com/mcp"}, False),
    ({"command": "x", "disabledTools": [1]}, False),
    ({"command": "x", "timeouts": {"connect": 0.0009}}, False),
    ({"command": "x", "reconnect": {"maxAttempts": 1000001}}, False),
]

IDS: list[tuple[str, bool]] = [
    ("a", True),
    ("0", True),
    ("a-b_c", True),
    ("a" * 63, True),
    ("A", False),
    ("-a", False),
    ("_a", False),
    ("a.b", False),
    ("a b", False),
    ("a__b", False),
    ("a" * 64, False),
    ("", False),
]

GATEWAYS: list[tuple[dict[str, Any], bool]] = [
    ({}, True),
    ({"listen": "127.0.0.1:0", "toolSeparator": "-", "maxBodyBytes": 1, "dataDir": "/tmp/y"}, True),
    ({"listen": "[::1]:8750"}, True),
    ({"listen": "localhost:65535"}, True),
    ({"listen": "${TEST_HOST}:8750"}, True),
    ({"adminToken": "", "publicURL": "https://gw.example.com"}, True),
    ({"allowedOrigins": ["http://localhost:3000", "chrome-extension://abc", "http://[::1]"]}, True),
    ({"listen": "127.0.0.1"}, False),
    ({"listen": "::1:80"}, False),
    ({"listen": "[::1]"}, False),
    ({"listen": "[zz::1]:80"}, False),
    ({"listen": "host:65536"}, False),
    ({"listen": "h o:1"}, False),
    ({"toolSeparator": ""}, False),
    ({"toolSeparator": "123456789"}, False),
    ({"toolSeparator": "/"}, False),
    ({"toolSeparator": "."}, False),
    ({"allowedOrigins": ["http://localhost:3000/app"]}, False),
    ({"allowedOrigins": ["localhost:3000"]}, False),
    ({"allowedOrigins": ["http://:80"]}, False),
    ({"maxBodyBytes": 0}, False),
    ({"maxBodyBytes": 1.5}, False),
    ({"maxBodyBytes": 1073741824}, True),
    ({"maxBodyBytes": 1073741825}, False),
    ({"maxBodyBytes": 9223372036854775807}, False),
    ({"dataDir": ""}, False),
    ({"publicURL": "gw.example.com"}, False),
    ({"listen": "127.0.0.1:8750", "port": 1}, False),
]


def assert_judged_alike(
    yrden: Path,
    tmp_path: Path,
    cases: list[tuple[Any, bool]],
    validator: jsonschema_rs.Validator,
    document: Callable[[Any], Any],
) -> None:
    results = check_config(yrden, [document(value) for value, _ in cases], tmp_path, CASE_ENV)
    wrong = []
    for (value, valid), (code, output) in zip(cases, results, strict=True):
        if validator.is_valid(value) != valid:
            wrong.append(f"schema says {'invalid' if valid else 'valid'}: {show(value)}")
        if (code == 0) != valid:
            wrong.append(f"check-config says {'invalid' if valid else 'valid'}: {show(value)}\n    {output.strip()}")
    assert wrong == [], "\n".join(wrong)


def test_entries_are_judged_like_the_config_file(spec, yrden, tmp_path):
    assert_judged_alike(
        yrden, tmp_path, ENTRIES, component_validator(spec, "ServerEntry"), lambda e: {"mcpServers": {"s": e}}
    )


def test_ids_are_judged_like_the_config_file(spec, yrden, tmp_path):
    assert_judged_alike(
        yrden, tmp_path, IDS, component_validator(spec, "ServerId"), lambda i: {"mcpServers": {i: {"command": "x"}}}
    )


def test_gateway_sections_are_judged_like_the_config_file(spec, yrden, tmp_path):
    assert_judged_alike(
        yrden, tmp_path, GATEWAYS, component_validator(spec, "GatewaySection"), lambda g: {"gateway": g}
    )


# ---------------------------------------------------------------------------
# Requests drawn by schemathesis, judged by check-config


@pytest.fixture(scope="module")
def api() -> schemathesis.schemas.BaseSchema:
    return schemathesis.openapi.from_path(str(SPEC_PATH))


def draw(api, label: str, mode: GenerationMode, count: int = EXAMPLES_PER_OPERATION) -> list[Any]:
    """Request bodies schemathesis draws for `label`, deterministically (derandomized, no database)."""
    method, path = label.split(" ", 1)
    bodies = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(api[path][method].as_strategy(generation_mode=mode))
    def collect(case):
        bodies.append(case.body)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collect()
    return bodies


def is_json(value: Any) -> bool:
    """Whether `value` is a JSON text's value: lone surrogates (which Python writes as `\\udXXX` escapes) are not,
    since they stand for no Unicode text, and the gateway refuses the whole file that holds one."""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except (TypeError, ValueError):
        return False
    return True


def as_config(label: str, body: Any) -> Any:
    """The config document that holds what a request body asks for."""
    if label == "POST /api/v1/servers":
        return {"mcpServers": {body["id"]: body["config"]}}
    if label == "PUT /api/v1/servers/{id}":
        return {"mcpServers": {"s": body}}
    return body


def holds_new_server(body: Any) -> bool:
    return isinstance(body, dict) and set(body) == {"id", "config"} and isinstance(body["id"], str)


BODY_SCHEMAS = {
    "POST /api/v1/servers": "NewServer",
    "PUT /api/v1/servers/{id}": "ServerEntry",
    "PUT /api/v1/config": "ConfigDocument",
}


@pytest.mark.parametrize("label", list(BODY_SCHEMAS))
def test_drawn_valid_requests_pass_check_config(spec, api, yrden, tmp_path, label):
    validator = component_validator(spec, BODY_SCHEMAS[label])
    as_patch = component_validator(spec, "ServerEntryPatch")
    documents = []
    for body in draw(api, label, GenerationMode.POSITIVE):
        assert validator.is_valid(body), f"schemathesis drew a body its own schema refuses: {show(body)}"
        if label == "PUT /api/v1/servers/{id}":
            assert as_patch.is_valid(body), f"a full entry must also be a valid merge patch: {show(body)}"
        document = as_config(label, body)
        # `${VAR}` is judged after expansion, from whatever environment the gateway has.
        if "${" not in json.dumps(document, ensure_ascii=False):
            documents.append(document)
    assert len(documents) >= EXAMPLES_PER_OPERATION // 3, "too few drawn bodies without ${VAR} to judge"
    wrong = []
    for document, (code, output) in zip(documents, check_config(yrden, documents, tmp_path, {}), strict=True):
        lines = output.strip().splitlines()
        if code != 0 and not all(any(rule in line for rule in BEYOND_JSON_SCHEMA) for line in lines):
            wrong.append(f"{show(document)}\n    {output.strip()}")
    assert wrong == [], f"valid by the schema, refused by check-config ({len(wrong)}):\n" + "\n".join(wrong[:10])


@pytest.mark.parametrize("label", list(BODY_SCHEMAS))
def test_drawn_invalid_requests_fail_check_config(spec, api, yrden, tmp_path, label):
    validator = component_validator(spec, BODY_SCHEMAS[label])
    entry, server_id = component_validator(spec, "ServerEntry"), component_validator(spec, "ServerId")
    documents = []
    # Negative cases may break a header (If-Match) or the media type instead of the body, so four times as many
    # are drawn as for the positive test to leave enough refused bodies to judge (with twice as many, one schema
    # change left PUT /servers/{id} fewer than 10).
    for body in draw(api, label, GenerationMode.NEGATIVE, count=4 * EXAMPLES_PER_OPERATION):
        # Only bodies the schema refuses count.
        if not is_json(body) or validator.is_valid(body):
            continue
        if label == "POST /api/v1/servers":
            # A body of the wrong shape has nothing for the config validator to judge; the API refuses it.
            if not holds_new_server(body) or (server_id.is_valid(body["id"]) and entry.is_valid(body["config"])):
                continue
        if label == "PUT /api/v1/config" and isinstance(body, dict) and validator.is_valid({"mcpServers": {}, **body}):
            continue  # `mcpServers` is required by the API only (the file may leave it out)
        documents.append(as_config(label, body))
    assert len(documents) >= 10, "too few invalid bodies drawn to judge"
    wrong = [
        show(document)
        for document, (code, _) in zip(documents, check_config(yrden, documents, tmp_path, {}), strict=True)
        if code == 0
    ]
    assert wrong == [], f"invalid by the schema, accepted by check-config ({len(wrong)}):\n" + "\n".join(wrong[:10])


def single_body_api(spec: dict[str, Any], schema: dict[str, Any]):
    """An API with one operation, `POST /t`, whose body is `schema` (with the spec's components)."""
    document = {**spec, "paths": {"/t": {"post": {
        "operationId": "t",
        "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
        "responses": {"200": {"description": "ok"}},
    }}}}  # fmt: skip
    return schemathesis.openapi.from_dict(document)


def entry_fields(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any], str, dict[str, Any]]]:
    """(section, base, field, field schema): every field of both kinds of entry and of the gateway section."""
    schemas = spec["components"]["schemas"]
    fields = []
    for kind, base in (("StdioServerEntry", {"command": "x"}), ("RemoteServerEntry", {"url": URL})):
        fields += [
            ("entry", base, name, schema)
            for name, schema in schemas[kind]["properties"].items()
            # A host key that is accepted with any value has no invalid value to draw.
            if set(resolve(spec, schema)) - {"description", "title"}
        ]
    fields += [("gateway", {}, name, schema) for name, schema in schemas["GatewaySection"]["properties"].items()]
    return fields


def problem_paths(output: str) -> list[str]:
    """The JSON paths of the problems check-config printed (`mcpServers.s3.args[0]: ...`)."""
    return [line.split(": ", 1)[0] for line in output.strip().splitlines()]


def test_drawn_invalid_fields_fail_check_config(spec, yrden, tmp_path):
    """Field by field, so that each rule the schema states is tried: a value its schema refuses makes the
    config file invalid too."""
    entry, gateway = component_validator(spec, "ServerEntry"), component_validator(spec, "GatewaySection")
    documents, owners = [], []
    for section, base, name, schema in entry_fields(spec):
        field = schema_validator(spec, schema)
        values = [
            body
            for body in draw(single_body_api(spec, schema), "POST /t", GenerationMode.NEGATIVE, count=20)
            if is_json(body) and not field.is_valid(body)
        ]
        candidates = [{**base, name: value} for value in values]
        whole = entry if section == "entry" else gateway
        candidates = [c for c in candidates if not whole.is_valid(c)]
        if not candidates:
            continue
        if section == "entry":
            servers = {f"s{i}": candidate for i, candidate in enumerate(candidates)}
            documents.append({"mcpServers": servers})
            owners.append([(f"mcpServers.s{i}", c) for i, c in enumerate(candidates)])
        else:
            documents += [{"gateway": candidate} for candidate in candidates]
            owners += [[("gateway", candidate)] for candidate in candidates]
    assert len(documents) > 20, "too few fields drew invalid values"
    wrong = []
    for parts, (code, output) in zip(owners, check_config(yrden, documents, tmp_path, {}), strict=True):
        paths = problem_paths(output) if code != 0 else []
        for owner, candidate in parts:
            if not any(path == owner or path.startswith((owner + ".", owner + "[")) for path in paths):
                wrong.append(show(candidate))
    assert wrong == [], f"invalid by the schema, accepted by check-config ({len(wrong)}):\n" + "\n".join(wrong[:10])


def test_schemathesis_can_draw_every_operation(api):
    """The next check is a schemathesis run against the server: every operation must be drawable both ways."""
    failures = []
    for result in api.get_all_operations():
        operation = result.ok()
        has_input = any(True for _ in operation.iter_parameters()) or operation.body
        for mode in GenerationMode if has_input else [GenerationMode.POSITIVE]:
            try:
                draw(api, f"{operation.method.upper()} {operation.path}", mode, count=10)
            except Exception as error:  # noqa: BLE001 - any failure to draw is the finding
                failures.append(f"{operation.label} ({mode.value}): {type(error).__name__}: {error}"[:300])
    assert failures == []
