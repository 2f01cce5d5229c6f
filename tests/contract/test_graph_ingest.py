"""The graph store contract, the graph as ingest writes it: entities merged on write, decisions and
their supersession (`IngestGraph`; the fixture writes through the whole store): the same tests
on every backend."""

from __future__ import annotations

import pytest

from engine.errors import StoreUnavailable
from engine.stores.base import GraphBatch, GraphStore
from tests.contract.graph_data import T, base_batch, decision, entity, episode


def test_entities_merge_on_write_prefixes_aliases_and_curation(graph: GraphStore) -> None:
    graph.write(GraphBatch(episodes=[episode("e1", T)], entities=[entity("pg", "PostgreSQL", aliases=["pg"])],
                           mentions=[("e1", "pg", 1)]))  # fmt: skip
    again = entity("pg", "PostgreSQL", aliases=["postgres"], first_seen=T - 5, last_seen=T + 9)
    graph.write(GraphBatch(episodes=[episode("e2", T + 9)], entities=[again], mentions=[("e2", "pg", 1)]))
    [pg] = graph.find_entities("ns", ["postgres"])  # by alias
    assert pg.mention_count == 2 and sorted(pg.aliases) == ["pg", "postgres"]
    assert (pg.first_seen, pg.last_seen) == (T - 5, T + 9)
    assert [e.id for e in graph.entities_with_prefix("ns", ["postg", "zzz"])] == ["pg"]
    assert graph.entities_with_prefix("other", ["postg"]) == []
    assert graph.entities_of("ns", ["e1", "e2"])["e2"][0].name == "PostgreSQL"

    assert "postgresql db" in graph.add_alias("ns", "pg", "postgresql db").aliases
    graph.write(GraphBatch(entities=[entity("psql", "Psql")], mentions=[("e1", "psql", 1)]))
    merged = graph.merge_entities("ns", "pg", "psql")
    assert "psql" in merged.aliases and merged.mention_count == 3
    assert graph.find_entities("ns", ["psql"])[0].id == "pg"
    with pytest.raises(StoreUnavailable):
        graph.merge_entities("ns", "pg", "missing")


def test_decisions_supersession_and_links(graph: GraphStore) -> None:
    batch = base_batch()
    graph.write(batch)
    assert [d.id for d in graph.active_decisions("ns", ["entity:pg"])] == ["d1"]
    graph.write(
        GraphBatch(
            episodes=[episode("e4", T + 30)],
            decisions=[decision("d2", "use MySQL", T + 30, subjects=["entity:pg"])],
            decided=[("e4", "d2")],
            about=[("d2", "pg")],
            supersedes=[("d2", "d1")],
        )
    )
    assert [d.id for d in graph.active_decisions("ns", ["entity:pg"])] == ["d2"]
    assert [d.id for d in graph.decisions_about("ns", ["pg"], 5)] == ["d2", "d1"]
    assert graph.decisions_about("other", ["pg"], 5) == []
    assert [d.id for d in graph.decisions_of("ns", ["e2"])["e2"]] == ["d1"]
    assert sorted(graph.decision_links("ns", ["d1", "d2"])) == [("d1", "pg"), ("d2", "pg")]
    assert graph.stats("ns", T + 100).decisions == 1
    previous, following = graph.session_neighbours("ns", "e2")
    assert (previous and previous.id, following and following.id) == ("e1", "e3")
    assert graph.session_neighbours("other", "e2") == (None, None)

    removed = graph.delete_episodes("ns", ["e2", "e3"])
    assert removed == ["d1"]
    assert graph.get_episodes("ns", ["e2", "e3"]) == []
    assert graph.find_entities("ns", ["postgresql"])[0].mention_count == 0
    assert [d.id for d in graph.decisions_about("ns", ["pg"], 5)] == ["d2"]
