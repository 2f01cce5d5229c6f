"""The graph store contract, all-or-nothing writes (`GraphWrites`; the fixture writes through the
whole store): the same tests on every backend."""

from __future__ import annotations

import pytest

from engine.errors import StoreUnavailable
from engine.stores.base import GraphBatch, GraphStore
from tests.contract.graph_data import T, entity, episode


def test_a_failed_transaction_leaves_nothing(graph: GraphStore) -> None:
    with pytest.raises(RuntimeError):
        with graph.transaction():
            graph.write(GraphBatch(episodes=[episode("e1", T)], entities=[entity("x", "X")]))
            raise RuntimeError("the vector mirror failed")
    assert graph.get_episodes("ns", ["e1"]) == []
    assert graph.find_entities("ns", ["x"]) == []
    with graph.transaction():
        graph.write(GraphBatch(episodes=[episode("e1", T)]))
        # Reads inside the transaction see its writes.
        assert [e.id for e in graph.live_episodes("ns", ["e1"], T)] == ["e1"]
    assert [e.id for e in graph.get_episodes("ns", ["e1"])] == ["e1"]


def test_a_failing_statement_rolls_back_the_whole_write(graph: GraphStore) -> None:
    graph.write(GraphBatch(episodes=[episode("e1", T)]))
    with pytest.raises(StoreUnavailable):  # e1 exists: its id is unique
        graph.write(GraphBatch(episodes=[episode("e2", T), episode("e1", T)]))
    assert graph.get_episodes("ns", ["e2"]) == []
