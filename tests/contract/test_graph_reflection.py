"""The graph store contract, the graph as reflection reads and writes it: facts, the cursor, paging
(`ReflectionGraph`; the fixture writes through the whole store): the same tests on every
backend."""

from __future__ import annotations

from engine.stores.base import GraphBatch, GraphStore
from engine.views import ReflectionSummary
from tests.contract.graph_data import T, base_batch, entity, episode, fact


def test_facts_written_reinforced_closed_and_moved_by_a_merge(graph: GraphStore) -> None:
    graph.write(base_batch())
    old = fact("f1", "Atlas used MySQL", 0.4)
    graph.write(GraphBatch(facts=[old, fact("f2", "Atlas uses PostgreSQL", 0.6, source_episode_ids=["e2"])]))
    graph.write(
        GraphBatch(
            fact_updates=[fact("f2", "Atlas uses PostgreSQL", 0.8, support=3, source_episode_ids=["e2", "e3"])],
            fact_closes=[("f1", "f2", T + 40)],
        )
    )
    active = graph.facts_about("ns", ["pg"], include_closed=False)
    assert [(f.id, f.subject, f.predicate, f.object, f.support) for f in active] == [
        ("f2", "Atlas", "uses", "PostgreSQL", 3)
    ]
    assert active[0].source_episode_ids == ["e2", "e3"] and active[0].confidence == 0.8
    closed = {f.id: f for f in graph.facts_about("ns", ["atlas"], include_closed=True)}
    assert closed["f1"].valid_to == T + 40 and closed["f1"].invalidated_by == "f2"
    assert graph.facts_about("other", ["atlas"], include_closed=True) == []
    assert graph.stats("ns", T).facts == 1
    # By id (what recall's fact points found) and every active one (what rebuilds them).
    assert [f.id for f in graph.facts_by_id("ns", ["f1", "f2", "nope"], include_closed=False)] == ["f2"]
    assert [f.id for f in graph.facts_by_id("ns", ["f1", "f2"], include_closed=True)] == ["f2", "f1"]
    assert graph.facts_by_id("other", ["f1", "f2"], include_closed=True) == []
    assert graph.facts_by_id("ns", [], include_closed=True) == []
    assert [(f.id, f.subject, f.object) for f in graph.active_facts("ns")] == [("f2", "Atlas", "PostgreSQL")]
    assert graph.active_facts("other") == []

    graph.write(GraphBatch(entities=[entity("postgres", "Postgres")]))
    graph.merge_entities("ns", "postgres", "pg")
    moved = graph.facts_about("ns", ["postgres"], include_closed=True)
    assert {f.id for f in moved} == {"f1", "f2"} and {f.object_id for f in moved} == {"postgres"}


def test_reflection_cursor(graph: GraphStore) -> None:
    assert graph.reflection_cursor("ns") == (0.0, "")
    summary = ReflectionSummary(id="r1", namespace="ns", ran_at=T, episodes_seen=3, clusters=1,
                                facts_written=1, facts_reinforced=0, facts_closed=0, until=T + 20,
                                until_id="e7")  # fmt: skip
    graph.write(GraphBatch(reflections=[summary]))
    assert graph.reflection_cursor("ns") == (T + 20, "e7")
    assert graph.reflection_cursor("other") == (0.0, "")
    # A later run re-read from the first episode (`force`): the next goes on from where it stopped.
    reread = summary.model_copy(update={"id": "r2", "ran_at": T + 60, "until": T + 5, "until_id": "e2"})
    graph.write(GraphBatch(reflections=[reread]))
    assert graph.reflection_cursor("ns") == (T + 5, "e2")


def test_episodes_after_pages_through_episodes_that_share_created_at(graph: GraphStore) -> None:
    """One store_many gives its episodes one created_at: paging by (created_at, id) reads
    every one of them exactly once, whatever the page size."""
    ids = [f"e{n:02d}" for n in range(7)]
    graph.write(GraphBatch(episodes=[episode(i, T) for i in ids] + [episode("late", T + 1)]))
    for page in (1, 2, 3, 10):
        seen: list[str] = []
        cursor = (0.0, "")
        while batch := graph.episodes_after("ns", cursor, T + 5, page):
            seen += [e.id for e in batch]
            cursor = (batch[-1].created_at, batch[-1].id)
        assert seen == [*ids, "late"], page
