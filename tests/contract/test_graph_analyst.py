"""The graph store contract, the graph as analysts query it (`AnalystGraph`; the fixture writes
through the whole store): the same tests on every backend."""

from __future__ import annotations

import pytest

from engine.errors import StoreUnavailable
from engine.stores.base import GraphBatch, GraphStore
from tests.contract.graph_data import T, episode


def test_read_cypher_is_read_only_and_caps_rows(graph: GraphStore) -> None:
    graph.write(GraphBatch(episodes=[episode(f"e{i}", T + i) for i in range(5)]))
    rows = graph.read_cypher(
        "MATCH (ep:Episode) WHERE ep.namespace = $ns RETURN ep.id, ep ORDER BY ep.id",
        {"ns": "ns"}, max_rows=3, timeout_ms=5000,
    )  # fmt: skip
    assert rows.columns == ["ep.id", "ep"] and rows.truncated
    assert [r[0] for r in rows.rows] == ["e0", "e1", "e2"]
    assert rows.rows[0][1]["label"] == "Episode" and rows.rows[0][1]["namespace"] == "ns"
    # The store refuses a write even when the text check is bypassed.
    with pytest.raises(StoreUnavailable, match="read-only"):
        graph.read_cypher("CREATE (:Session {id: 'x'})", {}, max_rows=3, timeout_ms=5000)
    count = graph.read_cypher("MATCH (s:Session) RETURN count(s)", {}, max_rows=3, timeout_ms=5000)
    assert count.rows == [[0]]
    graph.write(GraphBatch(episodes=[episode("e9", T)]))  # still writable afterwards
    assert [e.id for e in graph.live_episodes("ns", ["e9"], T)] == ["e9"]
