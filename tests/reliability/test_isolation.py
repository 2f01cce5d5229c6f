"""Isolation: whatever namespace B stores, forgets or reflects on, nothing of it comes back in
namespace A through any interface: recall, list, get, explain, explain_fact, entity, Cypher, and the MCP
tools (in process, through the SDK's client)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp import Client

from engine import Memory
from engine.errors import InvalidInput, NotFound
from mcp_server.server import build_server
from tests.backends import BACKENDS, open_settings

# What each namespace talks about. Queries from A use B's words to try to surface B; what must
# never come back is B's secret code (stored in B's content only, never asked for) or B's ids.
WORDS = {"a": ["alpha", "Orion", "Lisbon"], "b": ["bravo", "Vega", "Oslo"]}
SECRET = {"a": "qa7k", "b": "zx9w"}
PROBES = [
    "MATCH (e:Episode) WHERE e.namespace = $namespace RETURN e",
    "MATCH (e:Episode) WHERE e.namespace = $namespace RETURN count(e), collect(e.content)",
    "MATCH (n:Entity) WHERE n.namespace = $namespace RETURN n.name, n.aliases",
    "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace RETURN a, f, b",
    "MATCH (e:Episode)-[:MENTIONS]->(n:Entity) WHERE n.namespace = $namespace "
    "OPTIONAL MATCH (d:Decision)-[:ABOUT]->(n) RETURN e.content, d.text",
]
LEAKS = [  # each must be refused, not answered
    "MATCH (e:Episode) WHERE e.namespace = $namespace OR true RETURN count(e)",
    "MATCH (e:Episode) WHERE e.namespace <> $namespace RETURN count(e)",
    "MATCH (a:Entity) WHERE a.namespace = $namespace MATCH (b:Episode) RETURN count(b)",
    "MATCH (e:Episode) WHERE e.namespace = $namespace AND EXISTS { MATCH (x:Episode) "
    "WHERE x.content CONTAINS 'bravo' } RETURN count(e)",
    "MATCH (e:Episode) WHERE e.namespace = 'b' RETURN e",
]

operation = st.one_of(
    st.tuples(st.just("store"), st.sampled_from(["a", "b"]), st.integers(0, 2), st.booleans()),
    st.tuples(st.just("forget"), st.sampled_from(["a", "b"]), st.integers(0, 20), st.booleans()),
    st.tuples(st.just("reflect"), st.sampled_from(["a", "b"]), st.just(0), st.booleans()),
)


def _apply(memory: Memory, ops: list[tuple[str, str, int, bool]]) -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {"a": [], "b": []}
    for step, (kind, ns, n, flag) in enumerate(ops):
        word, name, city = WORDS[ns]
        if kind == "store":
            text = (f"{word} note {step}: {name} moved the {city} meeting to {n + 3} pm, "
                    f"code {SECRET[ns]}{step}" if flag
                    else f"We decided that {name} uses the {city} {word} cluster {SECRET[ns]}{step}")  # fmt: skip
            ids[ns].append(memory.store(text, namespace=ns, session_id=f"{ns}-s", importance=0.8).id)
        elif kind == "forget" and ids[ns]:
            try:
                memory.forget(ids[ns][n % len(ids[ns])], namespace=ns)
            except NotFound:
                pass  # forgotten already
        elif kind == "reflect":
            memory.reflect(namespace=ns, force=flag)
    return ids


_FACT_IDS = "MATCH (s:Entity)-[f:FACT]->(:Entity) WHERE s.namespace = $namespace RETURN f.id"


def _leaks(value: Any, b_ids: list[str]) -> list[str]:
    text = json.dumps(value, default=str, ensure_ascii=False).lower()
    return [m for m in [SECRET["b"], *b_ids] if m in text]


def _dump(value: Any) -> Any:
    if isinstance(value, list):
        return [_dump(v) for v in value]
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


async def _through_mcp(memory: Memory, b_ids: list[str], b_facts: list[str]) -> list[Any]:
    """What A's MCP client gets back: successful results only (an error echoes the request)."""
    seen: list[Any] = []
    async with Client(build_server(memory, default_namespace="a")) as client:

        async def call(tool: str, arguments: dict[str, Any]) -> bool:
            result = await client.call_tool(tool, arguments)
            if not result.is_error:
                seen.append(result.structured_content)
            return not result.is_error

        for word in WORDS["b"]:
            await call("retrieve_memory", {"query": f"{word} cluster", "top_k": 20})
            await call("get_entity", {"name": word})
        await call("list_memories", {"limit": 100})
        for episode_id in b_ids:
            assert not await call("explain_memory", {"memory_id": episode_id})
        for fact_id in b_facts:
            assert not await call("explain_fact", {"fact_id": fact_id})
        for probe in PROBES:
            assert await call("query_graph", {"cypher": probe})
        for leak in LEAKS:
            assert not await call("query_graph", {"cypher": leak})
    return seen


@example([("store", "b", 0, True), ("store", "b", 1, False), ("store", "b", 2, False),
          ("store", "a", 0, True), ("reflect", "b", 0, True), ("forget", "b", 0, True),
          ("store", "b", 1, True), ("reflect", "a", 0, False)])  # fmt: skip
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(operation, min_size=1, max_size=12))
@pytest.mark.parametrize("backend", BACKENDS)
def test_nothing_of_b_is_ever_seen_from_a(backend: str, ops: list[tuple[str, str, int, bool]]) -> None:
    with (
        tempfile.TemporaryDirectory() as data_dir,
        Memory.open(settings=open_settings(backend, Path(data_dir))) as memory,
    ):
        ids = _apply(memory, ops)
        b_facts = [row[0] for row in memory.cypher(_FACT_IDS, namespace="b").rows]
        b_ids = ids["b"]
        seen: list[Any] = []
        for word in WORDS["b"] + [" ".join(WORDS["b"])]:
            seen.append(_dump(memory.recall(word, namespace="a", top_k=20, include_shared=False)))
        seen.append(_dump(memory.list(namespace="a", limit=1000, include_deleted=True)))
        for episode_id in b_ids:
            for read in (memory.get, memory.explain):
                try:
                    seen.append(_dump(read(episode_id, namespace="a")))
                    raise AssertionError(f"{read.__name__} of a B id answered in A")
                except NotFound:
                    pass
        for fact_id in b_facts:
            try:
                seen.append(_dump(memory.explain_fact(fact_id, namespace="a")))
                raise AssertionError("explain_fact of a B fact answered in A")
            except NotFound:
                pass
        for name in WORDS["b"]:
            try:
                seen.append(_dump(memory.entity(name, namespace="a")))
            except NotFound:
                pass
        for probe in PROBES:
            seen.append(_dump(memory.cypher(probe, namespace="a")))
        for leak in LEAKS:
            try:
                seen.append(_dump(memory.cypher(leak, namespace="a")))
                raise AssertionError(f"answered: {leak}")
            except InvalidInput as exc:
                assert exc.field == "query"
        seen += anyio.run(_through_mcp, memory, b_ids, b_facts)
        assert _leaks(seen, b_ids + b_facts) == []
        assert memory.stats(namespace="a").episodes + memory.stats(namespace="b").episodes == (
            memory.stats().episodes
        )
