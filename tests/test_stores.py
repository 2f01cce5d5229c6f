"""The embedded stores on their own: the graph protocol on Ladybug, in a temporary directory."""

from __future__ import annotations

from pathlib import Path

from engine.errors import StoreUnavailable
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


def test_session_neighbours_decisions_and_facts(tmp_path: Path) -> None:
    graph = LadybugGraphStore(tmp_path / "g")
    batch = GraphBatch(
        episodes=[_episode("e1", T), _episode("e2", T + 10), _episode("e3", T + 20)],
        entities=[_entity("atlas", "Atlas"), _entity("pg", "PostgreSQL")],
        decisions=[Decision(id="d1", namespace="ns", text="use PostgreSQL", decided_at=T, created_at=T)],
        decided=[("e2", "d1")],
        about=[("d1", "pg")],
        next=[("e1", "e2"), ("e2", "e3")],
    )
    with graph.transaction():
        graph.write(batch)
    previous, following = graph.session_neighbours("ns", "e2")
    assert (previous and previous.id, following and following.id) == ("e1", "e3")
    assert graph.session_neighbours("other", "e2") == (None, None)
    assert [d.id for d in graph.decisions_of("ns", ["e2"])["e2"]] == ["d1"]
    assert [d.text for d in graph.decisions_about("ns", ["pg"], 5)] == ["use PostgreSQL"]
    assert graph.decisions_about("other", ["pg"], 5) == []

    # No writer of FACT edges exists before reflection lands: an analyst-style write stands in.
    graph._run(
        "MATCH (a:Entity {id: 'atlas'}), (b:Entity {id: 'pg'}) CREATE (a)-[:FACT {predicate: "
        "'uses', statement: 'Atlas uses PostgreSQL', confidence: 0.8, support: 3, valid_from: "
        "1.0, source_episode_ids: ['e2']}]->(b)"
    )
    graph._run(
        "MATCH (a:Entity {id: 'atlas'}), (b:Entity {id: 'pg'}) CREATE (a)-[:FACT {predicate: "
        "'uses', statement: 'Atlas used MySQL', confidence: 0.4, support: 1, valid_from: 0.5, "
        "valid_to: 1.0}]->(b)"
    )
    active = graph.facts_about("ns", ["pg"], include_closed=False)
    assert [(f.subject, f.predicate, f.object, f.support) for f in active] == [
        ("Atlas", "uses", "PostgreSQL", 3)
    ]
    assert active[0].source_episode_ids == ["e2"]
    assert len(graph.facts_about("ns", ["atlas"], include_closed=True)) == 2
    assert graph.facts_about("other", ["atlas"], include_closed=True) == []
    graph.close()


def test_read_cypher_runs_read_only_and_caps_rows(tmp_path: Path) -> None:
    graph = LadybugGraphStore(tmp_path / "g")
    with graph.transaction():
        graph.write(GraphBatch(episodes=[_episode(f"e{i}", T + i) for i in range(5)]))
    rows = graph.read_cypher(
        "MATCH (ep:Episode) WHERE ep.namespace = $ns RETURN ep.id, ep ORDER BY ep.id",
        {"ns": "ns"}, max_rows=3, timeout_ms=5000,
    )
    assert rows.columns == ["ep.id", "ep"] and rows.truncated
    assert [r[0] for r in rows.rows] == ["e0", "e1", "e2"]
    assert rows.rows[0][1]["label"] == "Episode" and rows.rows[0][1]["namespace"] == "ns"
    # The store refuses a write even when the text check is bypassed.
    try:
        graph.read_cypher("CREATE (:Session {id: 'x'})", {}, max_rows=3, timeout_ms=5000)
    except StoreUnavailable as exc:
        assert "read-only" in str(exc)
    else:
        raise AssertionError("a write ran in the read-only transaction")
    assert graph.read_cypher(
        "MATCH (s:Session) RETURN count(s)", {}, max_rows=3, timeout_ms=5000
    ).rows == [[0]]
    # The connection is usable for writes afterwards.
    with graph.transaction():
        graph.write(GraphBatch(episodes=[_episode("e9", T)]))
    assert graph.live_episode_ids("ns", ["e9"], T) == {"e9"}
    graph.close()


def test_missing_columns_are_added_on_open(tmp_path: Path) -> None:
    import ladybug

    path = tmp_path / "g"
    db = ladybug.Database(str(path))
    conn = ladybug.Connection(db)
    conn.execute(
        "CREATE NODE TABLE Episode(id STRING, namespace STRING, content STRING, "
        "occurred_at DOUBLE, created_at DOUBLE, PRIMARY KEY (id))"
    )
    conn.execute(
        "CREATE (:Episode {id: 'old', namespace: 'ns', content: 'from schema 1', "
        "occurred_at: 1.0, created_at: 1.0})"
    )
    conn.close()
    db.close()
    graph = LadybugGraphStore(path)
    [old] = graph.get_episodes("ns", ["old"])
    assert old.content == "from schema 1" and old.related_ids == [] and old.kind == "message"
    graph.close()
