"""The graph store contract: every GraphStore method, the same tests on every backend."""

from __future__ import annotations

import pytest

from engine.errors import StoreUnavailable
from engine.models import MAX_OFFSET, Decision, Entity, Episode, Session, session_node_id
from engine.stores.base import GraphBatch, GraphStore
from engine.views import Fact, ReflectionSummary
from tests.contract.conftest import OpenGraph

T = 1_700_000_000.0


def _episode(episode_id: str, at: float, namespace: str = "ns", **fields: object) -> Episode:
    return Episode.model_validate(
        {"id": episode_id, "namespace": namespace, "content": f"episode {episode_id}",
         "occurred_at": at, "created_at": at, **fields}
    )  # fmt: skip


def _entity(entity_id: str, name: str, namespace: str = "ns", **fields: object) -> Entity:
    return Entity.model_validate(
        {"id": entity_id, "namespace": namespace, "name": name, "canonical": name.lower(),
         "type": "THING", "first_seen": T, "last_seen": T, "created_at": T, **fields}
    )  # fmt: skip


def _decision(decision_id: str, text: str, at: float = T, **fields: object) -> Decision:
    return Decision.model_validate(
        {"id": decision_id, "namespace": "ns", "text": text, "decided_at": at, "created_at": at,
         **fields}
    )  # fmt: skip


def _fact(fact_id: str, statement: str, confidence: float, **fields: object) -> Fact:
    return Fact.model_validate(
        {"id": fact_id, "subject": "Atlas", "subject_id": "atlas", "predicate": "uses",
         "object": "PostgreSQL", "object_id": "pg", "statement": statement,
         "confidence": confidence, "support": 1, "valid_from": T, **fields}
    )  # fmt: skip


def _base_batch() -> GraphBatch:
    return GraphBatch(
        episodes=[_episode("e1", T), _episode("e2", T + 10), _episode("e3", T + 20)],
        entities=[_entity("atlas", "Atlas"), _entity("pg", "PostgreSQL")],
        decisions=[_decision("d1", "use PostgreSQL", subjects=["entity:pg"])],
        mentions=[("e1", "atlas", 1), ("e2", "atlas", 1), ("e3", "pg", 1)],
        decided=[("e2", "d1")],
        about=[("d1", "pg")],
        next=[("e1", "e2"), ("e2", "e3")],
    )


def test_deleting_episodes_closes_the_session_chain_over_them(open_graph: OpenGraph) -> None:
    graph = open_graph()
    ids = [f"c{i}" for i in range(6)]
    graph.write(GraphBatch(
        episodes=[_episode(i, T + n) for n, i in enumerate(ids)],
        next=list(zip(ids[:-1], ids[1:], strict=True)),
    ))  # fmt: skip
    graph.delete_episodes("ns", ["c0", "c2", "c3", "c5"])  # the head, a run of two, the tail

    def following(episode_id: str) -> str | None:
        found = graph.session_neighbours("ns", episode_id)[1]
        return None if found is None else found.id

    assert (following("c1"), following("c4")) == ("c4", None)
    assert graph.session_neighbours("ns", "c1")[0] is None  # the head went: nothing before
    graph.close()


def test_links_are_mentions_newest_first_hubs_out_and_the_live_filter(open_graph: OpenGraph) -> None:
    graph = open_graph()
    batch = _base_batch()
    batch.mentions.append(("e2", "pg", 1))  # the writer has an episode mention what it decides about
    graph.write(batch)
    links = graph.episodes_mentioning("ns", ["pg", "atlas"], T + 100, 10)
    assert [link.episode_id for link in links] == ["e3", "e2", "e2", "e1"]  # newest first
    assert {(link.episode_id, link.entity_id) for link in links} == {
        ("e3", "pg"), ("e2", "pg"), ("e2", "atlas"), ("e1", "atlas")
    }  # fmt: skip
    assert [link.episode_id for link in graph.episodes_mentioning("ns", ["pg", "atlas"], T + 100, 1)] == ["e3"]
    reached = graph.entity_links("ns", ["e2", "e2"], T + 100, max_degree=10)
    assert sorted((link.entity_id, link.entity_name, link.degree) for link in reached) == [
        ("atlas", "Atlas", 1), ("pg", "PostgreSQL", 1)
    ]  # fmt: skip
    assert graph.entity_links("ns", ["e2"], T + 100, max_degree=0) == []  # every entity a hub

    assert graph.soft_delete("ns", "e3", T + 50)
    assert not graph.soft_delete("ns", "e3", T + 60)  # already deleted
    assert [link.episode_id for link in graph.episodes_mentioning("ns", ["pg"], T + 100, 10)] == ["e2"]
    assert graph.entity_links("ns", ["e3"], T + 100, max_degree=10) == []
    assert [e.id for e in graph.live_episodes("ns", ["e1", "e3", "e1"], T + 100)] == ["e1"]
    assert graph.episodes_mentioning("other", ["pg"], T + 100, 10) == []
    assert [e.canonical for e in graph.find_entities("ns", ["postgresql", "nothing"])] == ["postgresql"]
    assert graph.find_entities("other", ["postgresql"]) == []
    graph.close()

    reopened = open_graph()
    stats = reopened.stats("ns", T + 100)
    assert (stats.episodes, stats.entities, stats.decisions, stats.facts) == (2, 2, 1, 0)
    assert reopened.stats(None, T + 100).episodes == 2
    assert reopened.stats("other", T + 100).episodes == 0


def test_a_failed_transaction_leaves_nothing(graph: GraphStore) -> None:
    with pytest.raises(RuntimeError):
        with graph.transaction():
            graph.write(GraphBatch(episodes=[_episode("e1", T)], entities=[_entity("x", "X")]))
            raise RuntimeError("the vector mirror failed")
    assert graph.get_episodes("ns", ["e1"]) == []
    assert graph.find_entities("ns", ["x"]) == []
    with graph.transaction():
        graph.write(GraphBatch(episodes=[_episode("e1", T)]))
        # Reads inside the transaction see its writes.
        assert [e.id for e in graph.live_episodes("ns", ["e1"], T)] == ["e1"]
    assert [e.id for e in graph.get_episodes("ns", ["e1"])] == ["e1"]


def test_a_failing_statement_rolls_back_the_whole_write(graph: GraphStore) -> None:
    graph.write(GraphBatch(episodes=[_episode("e1", T)]))
    with pytest.raises(StoreUnavailable):  # e1 exists: its id is unique
        graph.write(GraphBatch(episodes=[_episode("e2", T), _episode("e1", T)]))
    assert graph.get_episodes("ns", ["e2"]) == []


def test_episode_reads_filters_and_order(graph: GraphStore) -> None:
    node = session_node_id("ns", "s1")
    graph.write(
        GraphBatch(
            episodes=[
                _episode("a", T, session_id="s1", metadata={"k": [1, "x"]}, todos=["call"]),
                _episode("b", T + 10, session_id="s1", layer="working", related_ids=["a"]),
                _episode("c", T + 20, session_id="s2", expires_at=T + 30, content_hash="h-c"),
                _episode("z", T + 5, namespace="other", session_id="s1"),
            ],
            sessions=[Session(id=node, namespace="ns", name="s1", started_at=T, created_at=T)],
            in_session=[("a", node), ("b", node)],
        )
    )
    [a] = graph.get_episodes("ns", ["a"])
    assert a.metadata == {"k": [1, "x"]} and a.todos == ["call"] and a.session_id == "s1"
    assert graph.get_episodes("ns", ["z"]) == []
    assert graph.last_episode_in_session("ns", "s1") == "b"
    assert graph.last_episode_in_session("ns", "nope") is None

    def ids(**kwargs: object) -> list[str]:
        options = {"session_id": None, "limit": 10, "offset": 0, "include_deleted": False, **kwargs}
        return [e.id for e in graph.list_episodes("ns", **options)]  # type: ignore[arg-type]

    assert ids() == ["c", "b", "a"]
    assert ids(session_id="s1") == ["b", "a"]
    assert ids(layer="working") == ["b"]
    assert ids(limit=1, offset=1) == ["b"]
    assert ids(offset=MAX_OFFSET) == []  # the largest offset the API lets through
    assert graph.recent_episode_ids("ns", None, T + 25, 10) == ["c", "b", "a"]
    assert graph.recent_episode_ids("ns", None, T + 40, 10) == ["b", "a"]  # c expired
    assert graph.recent_episode_ids("ns", "s1", T + 25, 1) == ["b"]
    assert [e.id for e in graph.live_episodes("ns", ["c", "a"], T + 25)] == ["c", "a"]
    assert [e.id for e in graph.live_episodes("ns", ["c", "a", "z"], T + 40)] == ["a"]  # c expired
    assert graph.find_by_hash("ns", ["h-c", "h-none"], T + 25) == {"h-c": "c"}
    assert graph.find_by_hash("ns", ["h-c"], T + 40) == {}
    assert [e.id for e in graph.episodes_after("ns", (T + 5, ""), T + 25, 10)] == ["b", "c"]
    assert graph.namespaces() == ["ns", "other"]

    assert graph.soft_delete("ns", "a", T + 50)
    assert ids() == ["c", "b"] and ids(include_deleted=True) == ["c", "b", "a"]
    assert graph.restore("ns", "a") and not graph.restore("ns", "a")
    assert ids() == ["c", "b", "a"]
    assert graph.episode_states()["a"] == ("ns", False)
    graph.soft_delete("ns", "a", T + 50)
    assert graph.episode_states()["a"] == ("ns", True)
    assert {row.id for row in graph.lifecycle_rows("ns")} == {"b", "c"}


def test_session_windows_walk_the_next_chain_both_ways(graph: GraphStore) -> None:
    chain = [f"w{i}" for i in range(6)]
    graph.write(GraphBatch(
        episodes=[_episode(e, T + i) for i, e in enumerate(chain)] + [_episode("x", T, namespace="other")],
        next=list(zip(chain, chain[1:], strict=False)) + [("w5", "x")],
    ))  # fmt: skip
    graph.soft_delete("ns", "w2", T + 50)
    rows = graph.session_windows("ns", ["w3", "w0", "missing"])
    seen = {(r.episode_id, r.offset): (r.neighbour_id, r.live) for r in rows}
    assert seen == {
        ("w3", 0): ("w3", True), ("w3", -1): ("w2", False), ("w3", -2): ("w1", True),
        ("w3", -3): ("w0", True), ("w3", 1): ("w4", True), ("w3", 2): ("w5", True),
        ("w0", 0): ("w0", True), ("w0", 1): ("w1", True), ("w0", 2): ("w2", False),
        ("w0", 3): ("w3", True),
    }  # fmt: skip  # never past SESSION_WINDOW, never into another namespace
    assert next(r.content for r in rows if r.neighbour_id == "w4") == "episode w4"
    assert graph.session_windows("ns", []) == []


def test_next_turns_follow_one_live_step_within_the_namespace(graph: GraphStore) -> None:
    chain = ["n0", "n1", "n2", "n3"]
    graph.write(GraphBatch(
        episodes=[_episode(e, T + i) for i, e in enumerate(chain)] + [_episode("y", T, namespace="other")],
        next=list(zip(chain, chain[1:], strict=False)) + [("n3", "y")],
    ))  # fmt: skip
    graph.soft_delete("ns", "n2", T + 50)
    turns = graph.next_turns("ns", ["n0", "n1", "n3", "missing"])
    # n1's next is deleted, n3's next is in another namespace: neither has a next turn
    assert turns == {"n0": "n1"}
    assert graph.next_turns("other", ["n0"]) == {}  # n0 is not in "other"
    assert graph.next_turns("ns", []) == {}


def test_access_and_touch_bookkeeping(graph: GraphStore) -> None:
    graph.write(GraphBatch(episodes=[_episode("a", T)]))
    graph.mark_accessed("ns", ["a"], T + 5)
    graph.mark_accessed("other", ["a"], T + 9)  # another namespace changes nothing
    graph.touch("ns", [("a", T + 7, "mcp"), ("a", T + 6, "cli")])
    [a] = graph.get_episodes("ns", ["a"])
    assert a.last_accessed_at == T + 5 and a.access_count == 3
    assert a.last_seen == T + 7 and a.sources[-2:] == ["mcp", "cli"]
    [row] = graph.lifecycle_rows("ns")
    assert (row.last_accessed_at, row.last_seen) == (T + 5, T + 7)


def test_entities_merge_on_write_prefixes_aliases_and_curation(graph: GraphStore) -> None:
    graph.write(GraphBatch(episodes=[_episode("e1", T)], entities=[_entity("pg", "PostgreSQL", aliases=["pg"])],
                           mentions=[("e1", "pg", 1)]))  # fmt: skip
    again = _entity("pg", "PostgreSQL", aliases=["postgres"], first_seen=T - 5, last_seen=T + 9)
    graph.write(GraphBatch(episodes=[_episode("e2", T + 9)], entities=[again], mentions=[("e2", "pg", 1)]))
    [pg] = graph.find_entities("ns", ["postgres"])  # by alias
    assert pg.mention_count == 2 and sorted(pg.aliases) == ["pg", "postgres"]
    assert (pg.first_seen, pg.last_seen) == (T - 5, T + 9)
    assert [e.id for e in graph.entities_with_prefix("ns", ["postg", "zzz"])] == ["pg"]
    assert graph.entities_with_prefix("other", ["postg"]) == []
    assert graph.entities_of("ns", ["e1", "e2"])["e2"][0].name == "PostgreSQL"

    assert "postgresql db" in graph.add_alias("ns", "pg", "postgresql db").aliases
    graph.write(GraphBatch(entities=[_entity("psql", "Psql")], mentions=[("e1", "psql", 1)]))
    merged = graph.merge_entities("ns", "pg", "psql")
    assert "psql" in merged.aliases and merged.mention_count == 3
    assert graph.find_entities("ns", ["psql"])[0].id == "pg"
    with pytest.raises(StoreUnavailable):
        graph.merge_entities("ns", "pg", "missing")


def test_decisions_supersession_and_links(graph: GraphStore) -> None:
    batch = _base_batch()
    graph.write(batch)
    assert [d.id for d in graph.active_decisions("ns", ["entity:pg"])] == ["d1"]
    graph.write(
        GraphBatch(
            episodes=[_episode("e4", T + 30)],
            decisions=[_decision("d2", "use MySQL", T + 30, subjects=["entity:pg"])],
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


def test_facts_written_reinforced_closed_and_moved_by_a_merge(graph: GraphStore) -> None:
    graph.write(_base_batch())
    old = _fact("f1", "Atlas used MySQL", 0.4)
    graph.write(GraphBatch(facts=[old, _fact("f2", "Atlas uses PostgreSQL", 0.6, source_episode_ids=["e2"])]))
    graph.write(
        GraphBatch(
            fact_updates=[_fact("f2", "Atlas uses PostgreSQL", 0.8, support=3, source_episode_ids=["e2", "e3"])],
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

    graph.write(GraphBatch(entities=[_entity("postgres", "Postgres")]))
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


def test_episodes_after_pages_through_episodes_that_share_created_at(graph: GraphStore) -> None:
    """One store_many gives its episodes one created_at: paging by (created_at, id) reads
    every one of them exactly once, whatever the page size."""
    ids = [f"e{n:02d}" for n in range(7)]
    graph.write(GraphBatch(episodes=[_episode(i, T) for i in ids] + [_episode("late", T + 1)]))
    for page in (1, 2, 3, 10):
        seen: list[str] = []
        cursor = (0.0, "")
        while batch := graph.episodes_after("ns", cursor, T + 5, page):
            seen += [e.id for e in batch]
            cursor = (batch[-1].created_at, batch[-1].id)
        assert seen == [*ids, "late"], page


def test_read_cypher_is_read_only_and_caps_rows(graph: GraphStore) -> None:
    graph.write(GraphBatch(episodes=[_episode(f"e{i}", T + i) for i in range(5)]))
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
    graph.write(GraphBatch(episodes=[_episode("e9", T)]))  # still writable afterwards
    assert [e.id for e in graph.live_episodes("ns", ["e9"], T)] == ["e9"]


def test_export_then_import_reproduces_the_graph(open_graph: OpenGraph) -> None:
    graph = open_graph()
    graph.write(_base_batch())
    graph.write(GraphBatch(facts=[_fact("f1", "Atlas uses PostgreSQL", 0.6)]))
    records = graph.export_records()
    kinds = {kind for kind, _ in records}
    assert {"Episode", "Entity", "Decision", "rel:MENTIONS", "rel:FACT", "rel:NEXT"} <= kinds
    graph.close()
    fresh = open_graph(fresh=True)
    assert fresh.export_records() == []
    fresh.import_records(records)
    assert sorted(fresh.export_records(), key=repr) == sorted(records, key=repr)
    assert fresh.facts_about("ns", ["pg"], include_closed=False)[0].id == "f1"
