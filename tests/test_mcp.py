"""The MCP server driven by the official MCP client, over streamable HTTP, SSE and stdio.

The HTTP server is a real `hindsight serve` process on a free loopback port with a bearer
token; the stdio server is spawned by the client, as an MCP host would.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import CallToolResult

from tests.serving import HINDSIGHT, free_port, served

TOKEN = "test-token-0123456789"
TOOLS = {
    "store_memory", "store_task", "retrieve_memory", "list_memories", "list_sessions", "get_session", "forget_memory",
    "reflect", "explain_memory", "explain_fact", "get_entity", "query_graph",
}  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`hindsight serve` (streamable HTTP) with a token; yields its base URL."""
    port = free_port()
    data = tmp_path_factory.mktemp("served")
    env = {**os.environ, "HINDSIGHT_API_TOKEN": TOKEN, "HF_HUB_OFFLINE": "1"}
    args = ["--port", str(port), "--data-dir", str(data / "d")]
    with served(args, env, data / "server.log", port) as base:
        yield base


@asynccontextmanager
async def _http(
    base: str, namespace: str | None = None, header: str | None = None
) -> AsyncIterator[Client]:
    """A client on /mcp naming its namespace in the URL or in the header."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if header is not None:
        headers["X-Hindsight-Namespace"] = header
    url = f"{base}/mcp" + (f"?namespace={namespace}" if namespace else "")
    async with create_mcp_http_client(headers=headers) as http:  # the caller closes it
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


def _run(scenario: Callable[[], Awaitable[None]]) -> None:
    anyio.run(scenario)


def _data(result: CallToolResult) -> Any:
    assert not result.is_error, result.content
    return result.structured_content


def _error(result: CallToolResult) -> str:
    assert result.is_error, result.structured_content
    text = result.content[0]
    assert text.type == "text"
    return text.text


async def _store_recall_forget(client: Client) -> None:
    """The round trip every transport must pass."""
    listed = await client.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    for tool in listed.tools:
        assert tool.input_schema.get("additionalProperties") is False, tool.name
        assert tool.description and "Example" in tool.description, tool.name

    stored = _data(await client.call_tool(
        "store_memory",
        {"content": "We decided to use Postgres for Atlas.", "importance": "high",
         "session_id": "chat-1", "role": "user"},
    ))  # fmt: skip
    assert stored["status"] == "stored" and stored["importance"] == 0.9
    assert "Atlas" in stored["entities"]

    # "5" is coerced: agents often send numbers as strings.
    found = _data(await client.call_tool(
        "retrieve_memory", {"query": "Which database did we choose for Atlas?", "top_k": "5"}
    ))
    card = found["cards"][0]
    assert card["id"] == stored["id"]
    assert card["trace"]["channels"] and card["trace"]["final"] == card["score"]
    quiet = _data(await client.call_tool(
        "retrieve_memory", {"query": "database for Atlas", "explain": False}
    ))
    assert quiet["cards"][0]["trace"] is None

    # A bad argument is a tool error naming the field; the next call still works.
    assert "top_k" in _error(await client.call_tool("retrieve_memory", {"query": "x", "top_k": "many"}))
    assert "importance" in _error(await client.call_tool("store_memory", {"content": "x", "importance": 7}))
    assert "topk" in _error(await client.call_tool("retrieve_memory", {"query": "x", "topk": 3}))
    assert "content" in _error(await client.call_tool("store_memory", {"content": "   "}))
    assert "not found" in _error(await client.call_tool("forget_memory", {"memory_id": "nope"}))

    # A task run in one call, and the fix of its failure found by the error pasted again.
    task = _data(await client.call_tool("store_task", {"task": "Build the docs", "outcome": "success", "steps": [
        {"content": "make html\nmake: *** No rule to make target 'html'.  Stop.", "role": "make", "outcome": "failure"},
        {"content": "make -C docs html\nBuild finished.", "role": "make", "outcome": "success"}]}))  # fmt: skip
    assert [s["status"] for s in task["steps"]] == ["stored", "stored"]
    fixed = _data(await client.call_tool("retrieve_memory", {
        "query": "make: *** No rule to make target 'html'.  Stop. How did we fix it?", "top_k": 3}))  # fmt: skip
    assert fixed["cards"][0]["id"] == task["steps"][1]["id"]
    assert fixed["cards"][0]["trace"]["resolves"] == [task["steps"][0]["id"]]
    assert "steps" in _error(await client.call_tool("store_task", {"task": "x", "steps": []}))
    assert "outcome" in _error(await client.call_tool("store_memory", {"content": "x", "outcome": "partly"}))

    forgotten = _data(await client.call_tool("forget_memory", {"memory_id": stored["id"]}))
    assert forgotten == {"id": stored["id"], "status": "forgotten", "deleted_at": forgotten["deleted_at"]}
    after = _data(await client.call_tool("retrieve_memory", {"query": "database for Atlas"}))
    assert stored["id"] not in {c["id"] for c in after["cards"]}


def test_streamable_http_round_trip(server: str) -> None:
    async def scenario() -> None:
        async with _http(server, namespace="roundtrip") as client:
            await _store_recall_forget(client)

    _run(scenario)


def test_explain_entity_graph_and_reflect_over_http(server: str) -> None:
    async def scenario() -> None:
        async with _http(server, namespace="analyst") as client:
            first = _data(await client.call_tool(
                "store_memory", {"content": "We decided to ship Orion in June.", "session_id": "p"}
            ))
            second = _data(await client.call_tool(
                "store_memory",
                {"content": "Carol owns the QA sign-off for Orion.", "session_id": "p",
                 "related_ids": [first["id"]], "metadata": {"source": "standup"}},
            ))  # fmt: skip
            explained = _data(await client.call_tool("explain_memory", {"memory_id": second["id"]}))
            assert explained["episode"]["related_ids"] == [first["id"]]
            assert ("previous", first["id"]) in {(n["relation"], n["id"]) for n in explained["neighbours"]}
            assert "source: standup" in explained["why"]

            profile = _data(await client.call_tool("get_entity", {"name": "orion"}))
            assert profile["entity"]["name"] == "Orion"
            assert {e["id"] for e in profile["latest_episodes"]} == {first["id"], second["id"]}
            assert profile["decisions"][0]["text"] == "We decided to ship Orion in June."

            rows = _data(await client.call_tool(
                "query_graph",
                {"cypher": "MATCH (e:Episode) WHERE e.namespace = $namespace AND e.session_id = $s "
                           "RETURN count(e) AS n", "params": {"s": "p"}},
            ))  # fmt: skip
            assert rows["columns"] == ["n"] and rows["rows"] == [[2]]
            refused = _error(await client.call_tool(
                "query_graph", {"cypher": "MATCH (e:Episode) WHERE e.namespace = $namespace DETACH DELETE e"}
            ))
            assert "read-only" in refused

            reflected = _data(await client.call_tool("reflect", {}))
            assert reflected["status"] == "done" and reflected["episodes_seen"] == 2
            listed = _data(await client.call_tool("list_memories", {"session_id": "p", "limit": "1"}))
            assert [e["id"] for e in listed["episodes"]] == [second["id"]]
            # Reflection digested the session: listed, shown, and its id is what get_session takes.
            sessions = _data(await client.call_tool("list_sessions", {"limit": "5"}))
            assert [v["session_id"] for v in sessions["sessions"]] == ["p"]
            shown = _data(await client.call_tool("get_session", {"session_id": "p"}))
            assert shown["digest"]["episode_ids"] == [first["id"], second["id"]]
            assert "not found" in _error(await client.call_tool("get_session", {"session_id": "nope"}))

    _run(scenario)


def test_namespaces_isolate_clients_and_shared_is_read_by_all(server: str) -> None:
    async def scenario() -> None:
        async with _http(server, namespace="agent-a") as a, _http(server, header="agent-b") as b:
            secret = _data(await a.call_tool(
                "store_memory", {"content": "The vault code for Zephyr is kept by Dana."}
            ))
            assert secret["namespace"] == "agent-a"
            seen = _data(await b.call_tool("retrieve_memory", {"query": "vault code Zephyr Dana"}))
            assert seen["namespace"] == "agent-b" and seen["cards"] == []
            assert _data(await b.call_tool("list_memories", {}))["episodes"] == []
            assert "not found" in _error(await b.call_tool("explain_memory", {"memory_id": secret["id"]}))
            assert "not found" in _error(await b.call_tool("get_entity", {"name": "Zephyr"}))
            assert "not found" in _error(await b.call_tool("forget_memory", {"memory_id": secret["id"]}))
            leak = _error(await b.call_tool(
                "query_graph", {"cypher": "MATCH (e:Episode) WHERE e.namespace = $namespace OR true RETURN e"}
            ))
            # Refused before it runs: not even the other namespace's name comes back.
            assert "tied to $namespace" in leak and "agent-a" not in leak
            assert _data(await b.call_tool(
                "query_graph", {"cypher": "MATCH (e:Episode) WHERE e.namespace = $namespace RETURN e"}
            ))["rows"] == []
        async with _http(server, namespace="shared") as shared, _http(server, namespace="agent-b") as b:
            rule = _data(await shared.call_tool(
                "store_memory", {"content": "Every Zephyr release needs two reviewers."}
            ))
            cards = _data(await b.call_tool("retrieve_memory", {"query": "Zephyr release reviewers"}))
            assert [(c["id"], c["namespace"]) for c in cards["cards"]] == [(rule["id"], "shared")]
            own = _data(await b.call_tool("store_memory", {"content": "Zephyr notes for agent b."}))
            assert own["namespace"] == "agent-b"
        async with _http(server, namespace="bad namespace!") as bad:
            assert "namespace" in _error(await bad.call_tool("list_memories", {}))

    _run(scenario)


def test_token_is_required_but_health_is_open(server: str) -> None:
    assert httpx.post(f"{server}/mcp", json={}).status_code == 401
    wrong = httpx.post(f"{server}/mcp", json={}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"].startswith("Bearer")
    assert httpx.get(f"{server}/sse").status_code == 401
    health = httpx.get(f"{server}/health")
    assert health.status_code == 200
    report = health.json()
    assert report["status"] == "ok" and report["backend"] == "embedded"
    assert report["graph"] == "ok" and report["vectors"] == "ok"
    assert "episodes" not in report or report["episodes"] is None  # counts need a token
    counted = httpx.get(f"{server}/health", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert isinstance(counted["episodes"], int) and isinstance(counted["vector_points"], int)


def test_sse_transport_carries_the_namespace(server: str) -> None:
    async def scenario() -> None:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with Client(sse_client(f"{server}/sse?namespace=sse-agent", headers=headers)) as client:
            stored = _data(await client.call_tool("store_memory", {"content": "SSE note about Vega."}))
            assert stored["namespace"] == "sse-agent"
            listed = _data(await client.call_tool("list_memories", {}))
            assert [e["id"] for e in listed["episodes"]] == [stored["id"]]

    _run(scenario)


def test_stdio_round_trip(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=HINDSIGHT,
        args=["serve", "--transport", "stdio", "--namespace", "stdio-agent",
              "--data-dir", str(tmp_path / "d")],
        env={"HF_HUB_OFFLINE": "1"},
    )  # fmt: skip

    async def scenario() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            await _store_recall_forget(client)
            listed = _data(await client.call_tool("list_memories", {}))
            assert {e["namespace"] for e in listed["episodes"]} <= {"stdio-agent"}

    _run(scenario)


def test_serve_prints_a_client_config(tmp_path: Path) -> None:
    """The snippet `hindsight serve` prints is what the HTTP tests connect with."""
    port = free_port()
    process = subprocess.Popen(
        [HINDSIGHT, "serve", "--port", str(port), "--namespace", "agent-z",
         "--data-dir", str(tmp_path / "d")],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("MCP client configuration")
        snippet = json.loads(process.stdout.readline())
    finally:
        process.terminate()
        process.communicate(timeout=20)  # drains and closes the pipe
    entry = snippet["mcpServers"]["hindsight"]
    assert entry == {"type": "http", "url": f"http://127.0.0.1:{port}/mcp?namespace=agent-z"}
