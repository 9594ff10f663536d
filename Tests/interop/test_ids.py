"""Two sessions that use the same JSON-RPC ids at the same time each get their own answers.

Raw HTTP, so the ids are exactly what we write.
"""

from __future__ import annotations

import json

import anyio

from harness import RawSession, parse_sse, raw_mcp


async def call_tool(session: RawSession, name: str, arguments: dict, id) -> dict:
    return await session.request("tools/call", {"name": name, "arguments": arguments}, id=id)


def tool_text(answer: dict) -> str:
    assert "result" in answer, f"expected a result, got {answer}"
    return "\n".join(c["text"] for c in answer["result"]["content"] if c.get("type") == "text")


async def test_same_id_in_two_sessions_at_once(std_config, gateway):
    gw = gateway(std_config)
    async with raw_mcp(gw.url) as raw:
        alice = await raw.initialize()
        bob = await raw.initialize()
        assert alice.session_id != bob.session_id
        answers: dict[str, dict] = {}

        async def greet(key: str, session: RawSession, name: str) -> None:
            answers[key] = await call_tool(session, "sample__greet", {"name": name}, id=1)

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(greet, "alice", alice, "Alice")
                tg.start_soon(greet, "bob", bob, "Bob")

        assert answers["alice"]["id"] == 1 and answers["bob"]["id"] == 1
        assert tool_text(answers["alice"]) == "Hello, Alice!"
        assert tool_text(answers["bob"]) == "Hello, Bob!"


async def test_same_id_slow_and_fast_calls_do_not_cross(std_config, gateway):
    """Session A's id 1 is a slow call still in flight when session B's id 1 (fast) is answered."""
    gw = gateway(std_config)
    async with raw_mcp(gw.url) as raw:
        a = await raw.initialize()
        b = await raw.initialize()
        answers: dict[str, dict] = {}
        running = anyio.Event()

        async def slow() -> None:
            # Streamed, with a progress token: its first progress says it runs upstream.
            params = {"name": "sample__progress", "arguments": {"steps": 10}, "_meta": {"progressToken": "a"}}
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
            headers = {**raw.base_headers, **a.headers()}
            async with raw.http.stream("POST", raw.url, content=body, headers=headers) as response:
                buffered = ""
                async for chunk in response.aiter_text():
                    buffered += chunk
                    while "\n\n" in buffered:
                        block, buffered = buffered.split("\n\n", 1)
                        for message in parse_sse(block + "\n\n"):
                            if message.get("method") == "notifications/progress":
                                running.set()
                            elif message.get("id") == 1:
                                answers["a"] = message

        async def fast() -> None:
            await running.wait()  # A's call is upstream now
            answers["b"] = await call_tool(b, "sample__greet", {"name": "B"}, id=1)
            answers["b_done_first"] = {"value": "a" not in answers}

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(slow)
                tg.start_soon(fast)

        assert tool_text(answers["a"]) == "counted to 10"
        assert tool_text(answers["b"]) == "Hello, B!"
        assert answers["b_done_first"]["value"], "the fast call waited for the slow one"


async def test_many_sessions_many_rounds_with_string_and_number_ids(std_config, gateway):
    gw = gateway(std_config)
    async with raw_mcp(gw.url) as raw:
        sessions = [await raw.initialize() for _ in range(4)]
        ids = [1, "1", 2, "req-2"]
        answers: dict[tuple[int, int], dict] = {}

        async def run(index: int, session: RawSession) -> None:
            for round_, id in enumerate(ids):
                answers[(index, round_)] = await call_tool(session, "sample__greet", {"name": f"s{index}r{round_}"}, id)

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for index, session in enumerate(sessions):
                    tg.start_soon(run, index, session)

        for (index, round_), answer in answers.items():
            assert answer["id"] == ids[round_], f"id type or value changed: sent {ids[round_]!r}, got {answer['id']!r}"
            assert tool_text(answer) == f"Hello, s{index}r{round_}!"
