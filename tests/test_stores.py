"""The embedded stores on their own: the graph protocol on Ladybug, in a temporary directory."""

from __future__ import annotations

from pathlib import Path

from engine.models import Decision, Entity, Episode
from engine.stores.base import GraphBatch
from engine.stores.ladybug_graph import LadybugGraphStore

T = 1_700_000_000.0


def _episode(episode_id: str, at: float) -> Episode:
    return Episode(id=episode_id, namespace="ns", content=f"episode {episode_id}", occurred_at=at, created_at=at)


def _entity(entity_id: str, name: str) -> Entity:
    return Entity(
        id=entity_id, namespace="ns", name=name, canonical=name.lower(), type="THING",
        first_seen=T, last_seen=T, created_at=T,
    )


def test_links_direct_and_through_decisions_and_live_filter(tmp_path: Path) -> None:
    graph = LadybugGraphStore(tmp_path / "g")
    batch = GraphBatch(
        episodes=[_episode("e1", T), _episode("e2", T + 10), _episode("e3", T + 20)],
        entities=[_entity("atlas", "Atlas"), _entity("pg", "PostgreSQL")],
        decisions=[Decision(id="d1", namespace="ns", text="use PostgreSQL", decided_at=T, created_at=T)],
        mentions=[("e1", "atlas", 1), ("e2", "atlas", 1), ("e3", "pg", 1)],
        decided=[("e2", "d1")],
        about=[("d1", "pg")],
    )
    with graph.transaction():
        graph.write(batch)

    links = graph.episodes_mentioning("ns", ["pg"], T + 100, 10)
    assert {(link.episode_id, link.decision_id) for link in links} == {("e3", None), ("e2", "d1")}
    assert links[0].episode_id == "e3"  # newest first

    reached = graph.entity_links("ns", ["e2"], T + 100)
    assert {(link.entity_id, link.decision_id) for link in reached} == {("atlas", None), ("pg", "d1")}

    assert graph.soft_delete("ns", "e3", T + 50)
    assert [link.episode_id for link in graph.episodes_mentioning("ns", ["pg"], T + 100, 10)] == ["e2"]
    assert graph.live_episode_ids("ns", ["e1", "e3"], T + 100) == {"e1"}
    assert graph.episodes_mentioning("other", ["pg"], T + 100, 10) == []
    assert [e.canonical for e in graph.find_entities("ns", ["postgresql", "nothing"])] == ["postgresql"]
    graph.close()

    reopened = LadybugGraphStore(tmp_path / "g")
    assert reopened.stats("ns", T + 100).episodes == 2
    assert reopened.stats("ns", T + 100).decisions == 1
    reopened.close()


def test_failed_transaction_leaves_nothing(tmp_path: Path) -> None:
    graph = LadybugGraphStore(tmp_path / "g")
    try:
        with graph.transaction():
            graph.write(GraphBatch(episodes=[_episode("e1", T)]))
            raise RuntimeError("the vector mirror failed")
    except RuntimeError:
        pass
    assert graph.get_episodes("ns", ["e1"]) == []
    with graph.transaction():
        graph.write(GraphBatch(episodes=[_episode("e1", T)]))
    assert [e.id for e in graph.get_episodes("ns", ["e1"])] == ["e1"]
    graph.close()
