"""The graph store contract, the graph as forgetting, repair and backup maintain it
(`MaintenanceGraph`; the fixture writes through the whole store): the same tests on every
backend."""

from __future__ import annotations

from engine.models import Session, session_node_id
from engine.stores.base import GraphBatch, GraphStore
from tests.contract.conftest import OpenGraph
from tests.contract.graph_data import T, base_batch, decision, entity, episode, fact


def test_deleting_episodes_closes_the_session_chain_over_them(open_graph: OpenGraph) -> None:
    graph = open_graph()
    ids = [f"c{i}" for i in range(6)]
    graph.write(GraphBatch(
        episodes=[episode(i, T + n) for n, i in enumerate(ids)],
        next=list(zip(ids[:-1], ids[1:], strict=True)),
    ))  # fmt: skip
    graph.delete_episodes("ns", ["c0", "c2", "c3", "c5"])  # the head, a run of two, the tail

    def following(episode_id: str) -> str | None:
        found = graph.session_neighbours("ns", episode_id)[1]
        return None if found is None else found.id

    assert (following("c1"), following("c4")) == ("c4", None)
    assert graph.session_neighbours("ns", "c1")[0] is None  # the head went: nothing before
    graph.close()


def test_session_windows_walk_the_next_chain_both_ways(graph: GraphStore) -> None:
    chain = [f"w{i}" for i in range(6)]
    graph.write(GraphBatch(
        episodes=[episode(e, T + i) for i, e in enumerate(chain)] + [episode("x", T, namespace="other")],
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


def test_export_then_import_reproduces_the_graph(open_graph: OpenGraph) -> None:
    graph = open_graph()
    graph.write(base_batch())
    graph.write(GraphBatch(facts=[fact("f1", "Atlas uses PostgreSQL", 0.6)]))
    records = graph.export_records()
    kinds = {kind for kind, _ in records}
    assert {"Episode", "Entity", "Decision", "rel:MENTIONS", "rel:FACT", "rel:NEXT"} <= kinds
    graph.close()
    fresh = open_graph(fresh=True)
    assert fresh.export_records() == []
    fresh.import_records(records)
    assert sorted(fresh.export_records(), key=repr) == sorted(records, key=repr)
    assert fresh.facts_about("ns", ["pg"], include_closed=False)[0].id == "f1"


def test_removing_a_namespace_leaves_no_node_of_it_and_every_other_untouched(graph: GraphStore) -> None:
    graph.write(base_batch())
    other = GraphBatch(
        episodes=[episode("o1", T, "other", session_id="s"), episode("o2", T + 5, "other", session_id="s")],
        entities=[entity("o-atlas", "Atlas", "other")],
        decisions=[decision("o-d1", "use Redis").model_copy(update={"namespace": "other"})],
        sessions=[Session(id=session_node_id("other", "s"), namespace="other", name="s", started_at=T, created_at=T)],
        mentions=[("o1", "o-atlas", 1)], decided=[("o2", "o-d1")], about=[("o-d1", "o-atlas")],
        in_session=[("o1", session_node_id("other", "s")), ("o2", session_node_id("other", "s"))],
        next=[("o1", "o2")],
    )  # fmt: skip
    graph.write(other)
    kept = graph.stats("ns", T + 30)
    assert graph.stats("other", T + 30).episodes == 2 and graph.sessions("other", T + 30)

    graph.remove_namespace("other")
    assert graph.stats("other", T + 30).model_dump(exclude={"graph_reads"}) == {
        "namespace": "other", "episodes": 0, "entities": 0, "decisions": 0, "facts": 0}
    assert graph.sessions("other", T + 30) == [] and graph.namespaces() == ["ns"]
    assert graph.stats("ns", T + 30) == kept
    assert [e.id for e in graph.live_episodes("ns", ["e1", "e2", "e3"], T + 30)] == ["e1", "e2", "e3"]
    graph.remove_namespace("nobody")  # nothing to remove: nothing happens
    assert graph.stats("ns", T + 30) == kept
