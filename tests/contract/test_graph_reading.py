"""The graph store contract, the graph as the façade's readers see it: episodes by id, listing,
access marks (`ReadingGraph`; the fixture writes through the whole store): the same tests on
every backend."""

from __future__ import annotations

from engine.inputs import MAX_OFFSET
from engine.models import Session, session_node_id
from engine.stores.base import GraphBatch, GraphStore
from tests.contract.graph_data import T, episode


def test_episode_reads_filters_and_order(graph: GraphStore) -> None:
    node = session_node_id("ns", "s1")
    graph.write(
        GraphBatch(
            episodes=[
                episode("a", T, session_id="s1", metadata={"k": [1, "x"]}, todos=["call"]),
                episode("b", T + 10, session_id="s1", layer="working", related_ids=["a"]),
                episode("c", T + 20, session_id="s2", expires_at=T + 30, content_hash="h-c"),
                episode("z", T + 5, namespace="other", session_id="s1"),
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


def test_access_and_touch_bookkeeping(graph: GraphStore) -> None:
    graph.write(GraphBatch(episodes=[episode("a", T)]))
    graph.mark_accessed("ns", ["a"], T + 5)
    graph.mark_accessed("other", ["a"], T + 9)  # another namespace changes nothing
    graph.touch("ns", [("a", T + 7, "mcp"), ("a", T + 6, "cli")])
    [a] = graph.get_episodes("ns", ["a"])
    assert a.last_accessed_at == T + 5 and a.access_count == 3
    assert a.last_seen == T + 7 and a.sources[-2:] == ["mcp", "cli"]
    [row] = graph.lifecycle_rows("ns")
    assert (row.last_accessed_at, row.last_seen) == (T + 5, T + 7)
