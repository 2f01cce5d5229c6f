"""The graph store contract, the graph as recall reads it: mentions both ways, live filters, the
next turn (`RecallGraph`; the fixture writes through the whole store): the same tests on every
backend."""

from __future__ import annotations

from engine.stores.base import GraphBatch, GraphStore
from tests.contract.conftest import OpenGraph
from tests.contract.graph_data import T, base_batch, episode


def test_links_are_mentions_newest_first_hubs_out_and_the_live_filter(open_graph: OpenGraph) -> None:
    graph = open_graph()
    batch = base_batch()
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


def test_next_turns_follow_one_live_step_within_the_namespace(graph: GraphStore) -> None:
    chain = ["n0", "n1", "n2", "n3"]
    graph.write(GraphBatch(
        episodes=[episode(e, T + i) for i, e in enumerate(chain)] + [episode("y", T, namespace="other")],
        next=list(zip(chain, chain[1:], strict=False)) + [("n3", "y")],
    ))  # fmt: skip
    graph.soft_delete("ns", "n2", T + 50)
    turns = graph.next_turns("ns", ["n0", "n1", "n3", "missing"])
    # n1's next is deleted, n3's next is in another namespace: neither has a next turn
    assert turns == {"n0": "n1"}
    assert graph.next_turns("other", ["n0"]) == {}  # n0 is not in "other"
    assert graph.next_turns("ns", []) == {}
