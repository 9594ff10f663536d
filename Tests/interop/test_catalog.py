"""The aggregated catalog, as the official Python SDK client sees it through the gateway.

One gateway (demo, time, sample) serves the whole module; every test runs once
per client mode: ``legacy`` (initialize handshake) and ``auto`` (the SDK
default: ``server/discover`` first, falling back to initialize).
"""

from __future__ import annotations

import json
import re

import anyio
import mcp_types as types
import pytest

from harness import (
    LEGACY_VERSION,
    MODERN_VERSION,
    MODES,
    PYTHON,
    SAMPLE_README_TEXT,
    SAMPLE_SERVER,
    Gateway,
    McpSession,
    mcp_session,
    sample_args_for,
    text_of,
)

UI_MIME = "text/html;profile=mcp-app"
EXPECTED_TOOLS = {
    "demo__echo",
    "demo__add",
    "demo__slow",
    "time__get_current_time",
    "time__convert_time",
    "sample__greet",
    "sample__progress",
    "sample__add_tool",
}
SERVER_IDS = ("demo", "time", "sample")
TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")  # the spec's allowed characters and length


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


ONE_TOOL_PER_SERVER = {"demo__echo", "time__get_current_time", "sample__greet"}
_catalog_seen: dict[int, bool] = {}  # per shared gateway: did all three servers ever show up?


@pytest.fixture
async def session(shared_gateway: Gateway, mode: str):
    """A session on the module's gateway, once every upstream's tools are listed.

    The first test waits up to 30 s for the upstreams; if they never showed up,
    later tests give up after 3 s instead of each waiting the full time.
    """
    async with mcp_session(shared_gateway.url, mode=mode) as s:
        first = shared_gateway.pid not in _catalog_seen
        _catalog_seen.setdefault(shared_gateway.pid, False)
        await s.wait_for_tools(ONE_TOOL_PER_SERVER, timeout=30 if first or _catalog_seen[shared_gateway.pid] else 3)
        _catalog_seen[shared_gateway.pid] = True
        yield s


def ui_resource_uri(tool: types.Tool) -> str | None:
    """The MCP Apps UI resource of a tool: ``_meta.ui.resourceUri`` or the older flat ``_meta["ui/resourceUri"]``."""
    meta = tool.meta or {}
    ui = meta.get("ui")
    if isinstance(ui, dict) and isinstance(ui.get("resourceUri"), str):
        return ui["resourceUri"]
    flat = meta.get("ui/resourceUri")
    return flat if isinstance(flat, str) else None


def expand(uri_template: str, value: str = "1") -> str:
    """A concrete URI for an RFC 6570 template: simple variables get ``value``, query parts are dropped."""
    uri = re.sub(r"\{[?&][^}]*\}", "", uri_template)
    return re.sub(r"\{[^}]*\}", value, uri)


@pytest.mark.parametrize("mode", ["legacy"])
async def test_legacy_mode_negotiates_the_handshake_era(session: McpSession):
    assert session.protocol_version == LEGACY_VERSION
    assert session.client.server_info is not None


@pytest.mark.stateless_era
@pytest.mark.parametrize("mode", ["auto"])
async def test_auto_mode_lands_on_the_stateless_era(session: McpSession):
    # The SDK's default mode probes server/discover; a gateway that serves 2026-07-28
    # (DESIGN.md) answers it, and the client stays sessionless.
    assert session.protocol_version == MODERN_VERSION


async def test_tools_are_namespaced_by_server(session: McpSession):
    tools = await session.tools()
    names = [t.name for t in tools]
    assert len(names) == len(set(names)), f"duplicate tool names: {names}"
    assert EXPECTED_TOOLS <= set(names)
    for name in names:
        assert TOOL_NAME.match(name), f"tool name outside the spec's characters/length: {name!r}"
        prefix, sep, bare = name.partition("__")
        assert sep and bare and prefix in SERVER_IDS, f"tool {name!r} is not <server>__<name>"
    # Descriptions and schemas pass through untouched.
    greet = next(t for t in tools if t.name == "sample__greet")
    assert greet.description == "Greet someone by name."
    assert greet.input_schema["properties"]["name"]["type"] == "string"
    assert greet.input_schema.get("required") == ["name"]


async def test_time_server_answers_through_the_gateway(session: McpSession):
    with anyio.fail_after(15):
        result = await session.client.call_tool("time__get_current_time", {"timezone": "UTC"})
    assert not result.is_error, text_of(result)
    payload = result.structured_content or json.loads(text_of(result))
    assert payload["timezone"] == "UTC"
    assert re.match(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", payload["datetime"]), payload


async def test_demo_echo(session: McpSession):
    echo = await session.tool("demo__echo")
    schema = echo.input_schema
    text_props = [k for k, v in (schema.get("properties") or {}).items() if v.get("type") == "string"]
    assert text_props, f"demo__echo takes no string argument: {schema}"
    message = "hello through yrden ✓"
    args = sample_args_for(schema, {text_props[0]: message})
    args.setdefault(text_props[0], message)
    with anyio.fail_after(15):
        result = await session.client.call_tool("demo__echo", args)
    assert not result.is_error, text_of(result)
    assert message in text_of(result) or message in json.dumps(result.structured_content, ensure_ascii=False)


async def test_demo_add(session: McpSession):
    with anyio.fail_after(15):
        result = await session.client.call_tool("demo__add", {"a": 2, "b": 40})
    assert not result.is_error, text_of(result)
    assert "42" in text_of(result) or "42" in json.dumps(result.structured_content)


async def test_sample_greet(session: McpSession):
    with anyio.fail_after(15):
        result = await session.client.call_tool("sample__greet", {"name": "Yrden"})
    assert not result.is_error
    assert text_of(result) == "Hello, Yrden!"


async def test_resources_keep_their_uris_and_read_back(session: McpSession):
    with anyio.fail_after(15):
        resources = (await session.client.list_resources()).resources
    uris = [str(r.uri) for r in resources]
    assert "sample://readme" in uris, uris
    demo_text = [r for r in resources if not str(r.uri).startswith(("sample://", "ui://"))]
    assert demo_text, f"no demo resource listed: {uris}"

    with anyio.fail_after(15):
        readme = await session.client.read_resource("sample://readme")
    assert readme.contents[0].uri == "sample://readme"
    assert text_of(readme) == SAMPLE_README_TEXT
    assert readme.contents[0].mime_type == "text/plain"

    for resource in demo_text:
        with anyio.fail_after(15):
            read = await session.client.read_resource(str(resource.uri))
        assert read.contents, f"{resource.uri} read back empty"
        assert str(read.contents[0].uri) == str(resource.uri)


async def test_resource_templates(session: McpSession):
    with anyio.fail_after(15):
        templates = (await session.client.list_resource_templates()).resource_templates
    by_uri = {t.uri_template: t for t in templates}
    assert "sample://items/{id}" in by_uri, list(by_uri)
    others = [u for u in by_uri if not u.startswith("sample://")]
    assert others, f"no demo resource template listed: {list(by_uri)}"

    with anyio.fail_after(15):
        item = await session.client.read_resource("sample://items/7")
    assert text_of(item) == "item 7"
    for template in others:
        with anyio.fail_after(15):
            read = await session.client.read_resource(expand(template))
        assert read.contents, f"{template} expanded to {expand(template)} read back empty"


async def test_ui_tool_points_at_a_page_that_reads_back(session: McpSession):
    tools = await session.tools()
    ui_tools = {t.name: ui_resource_uri(t) for t in tools if ui_resource_uri(t)}
    demo_ui = {name: uri for name, uri in ui_tools.items() if name.startswith("demo__")}
    assert demo_ui, "no demo tool carries _meta.ui.resourceUri"
    for name, uri in demo_ui.items():
        assert uri.startswith("ui://"), f"{name}: {uri}"
        with anyio.fail_after(15):
            page = await session.client.read_resource(uri)
        assert page.contents, f"{uri} read back empty"
        content = page.contents[0]
        assert str(content.uri) == uri
        assert content.mime_type == UI_MIME
        assert isinstance(content, types.TextResourceContents) and "<" in content.text

    # The nested form is what the current MCP Apps spec uses; it must survive the gateway.
    nested = [t for t in tools if t.name in demo_ui and isinstance((t.meta or {}).get("ui"), dict)]
    assert nested, "the UI tool lost its nested _meta.ui object"


async def test_prompts(session: McpSession):
    with anyio.fail_after(15):
        prompts = (await session.client.list_prompts()).prompts
    by_name = {p.name: p for p in prompts}
    assert "sample__summarize" in by_name, list(by_name)
    for name in by_name:
        prefix, sep, bare = name.partition("__")
        assert sep and bare and prefix in SERVER_IDS, f"prompt {name!r} is not <server>__<name>"

    with anyio.fail_after(15):
        summary = await session.client.get_prompt("sample__summarize", {"text": "the quick brown fox"})
    assert "Summarize this text" in text_of(summary)
    assert "the quick brown fox" in text_of(summary)

    demo_with_args = [p for p in prompts if p.name.startswith("demo__") and p.arguments]
    assert demo_with_args, f"no demo prompt with arguments: {list(by_name)}"
    prompt = demo_with_args[0]
    args = {a.name: f"value-{a.name}" for a in prompt.arguments or [] if a.required}
    if not args:
        first = (prompt.arguments or [])[0]
        args = {first.name: f"value-{first.name}"}
    with anyio.fail_after(15):
        got = await session.client.get_prompt(prompt.name, args)
    assert got.messages, f"{prompt.name} returned no messages"
    rendered = text_of(got)
    assert any(v in rendered for v in args.values()), f"{prompt.name} ignored its arguments: {rendered!r}"


async def test_an_ambiguous_bare_tool_name_names_its_candidates(gateway, yrden):
    # Two servers offer `greet`, one offers `echo`: a bare `echo` still routes, a bare `greet` is ambiguous.
    sample = {"command": PYTHON, "args": [str(SAMPLE_SERVER)]}
    demo = {"command": str(yrden), "args": ["demo-server"]}
    gw = gateway({"mcpServers": {"demo": demo, "left": sample, "right": sample}})
    async with mcp_session(gw.url, mode="legacy") as session:
        await session.wait_for_tools({"left__greet", "right__greet", "demo__echo"})
        with anyio.fail_after(15):
            echoed = await session.client.call_tool("echo", {"message": "bare"})
            assert text_of(echoed) == "bare"
            with pytest.raises(Exception) as raised:
                await session.client.call_tool("greet", {"name": "x"})
    message = str(raised.value)
    assert "ambiguous" in message.lower() and "left__greet" in message and "right__greet" in message, message
