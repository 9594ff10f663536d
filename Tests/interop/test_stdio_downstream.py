"""`yrden stdio`: the same aggregate for hosts that can only launch a command.

The official SDK's stdio client launches the gateway as its server; the gateway in turn launches the demo
and sample upstreams. When the client closes stdin, the gateway stops its children and exits.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from harness import MODERN_VERSION, MODES, all_processes, clean_env, descendants_of, is_running, standard_config, text_of

pytestmark = pytest.mark.parametrize("mode", MODES)


class ProgressLog:
    def __init__(self) -> None:
        self.updates: list[float] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.updates.append(progress)


async def test_stdio_serves_the_aggregate(yrden: Path, tmp_path: Path, mode: str):
    config = standard_config(yrden)
    del config["mcpServers"]["time"]
    config_file = tmp_path / "yrden.json"
    config_file.write_text(json.dumps(config))
    params = StdioServerParameters(command=str(yrden), args=["stdio", "--config", str(config_file)], env=clean_env())
    stderr = (tmp_path / "stderr.log").open("w")
    with anyio.fail_after(60):
        async with Client(stdio_client(params, errlog=stderr), mode=mode, cache=None) as client:
            # auto probes server/discover, which `yrden stdio` answers: the stateless era, no handshake.
            assert (client.protocol_version == MODERN_VERSION) == (mode == "auto"), client.protocol_version
            names: set[str] = set()
            while not {"demo__echo", "sample__greet"} <= names:
                names = {tool.name for tool in (await client.list_tools()).tools}
                await anyio.sleep(0.2)

            echoed = await client.call_tool("demo__echo", {"message": "over stdio"})
            assert text_of(echoed) == "over stdio"

            log = ProgressLog()
            counted = await client.call_tool("sample__progress", {"steps": 3}, progress_callback=log)
            assert text_of(counted) == "counted to 3"
            assert log.updates == [1, 2, 3]

            unknown = None
            try:
                await client.call_tool("nope__nothing", {})
            except Exception as error:  # the SDK raises the JSON-RPC error
                unknown = str(error)
            assert unknown is not None and "nope__nothing" in unknown

            gateways = [p for p in all_processes() if str(config_file) in p.command and p.state != "Z"]
            assert len(gateways) == 1, gateways
            started = [p.pid for p in descendants_of(gateways[0].pid)]
            assert len(started) >= 2, "the demo and sample upstreams run under the gateway"
    stderr.close()
    # Closing stdin ended the session: the gateway stopped its upstreams and exited.
    with anyio.fail_after(20):
        while any(is_running(pid) for pid in [gateways[0].pid, *started]):
            await anyio.sleep(0.1)
