"""The graph store contract, the graph as ingest writes it: entities merged on write, decisions and
their supersession (`IngestGraph`; the fixture writes through the whole store): the same tests
on every backend."""

from __future__ import annotations

import random

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


# Pieces of names that mean something to Cypher, Lucene's query syntax or a tokenizer.
_AWKWARD = ['"', "\\", "'", "`", "$", " ", "*", "?", "~", "(", ")", ":", "/", "+", "-", "!", "^", "[", "]",
            "{", "}", "&&", "||", " OR ", " AND ", "北京", "é", "a", "b", "c"]  # fmt: skip


def test_entities_are_found_by_name_or_alias_exactly_and_only_in_their_namespace(graph: GraphStore) -> None:
    """Random names and aliases in two namespaces: by every backend, `find_entities` and
    `named_rows` return exactly the asked namespace's entities of which a name is the
    canonical one or an alias (what a plain reading of the entities finds)."""
    rng = random.Random(11)

    def name() -> str:
        return "".join(rng.choice(_AWKWARD) for _ in range(rng.randint(1, 4))).strip() or "x"

    names = list(dict.fromkeys(name() for _ in range(40)))
    entities = [
        entity(f"{namespace}-{i}", rng.choice(names), namespace, canonical=rng.choice(names),
               aliases=rng.sample(names, rng.randint(0, 2)))
        for namespace in ("ns", "other") for i in range(25)
    ]  # fmt: skip
    graph.write(GraphBatch(episodes=[episode("e-ns", T), episode("e-other", T, "other")], entities=entities,
                           mentions=[(f"e-{e.namespace}", e.id, 1) for e in entities]))  # fmt: skip
    for _ in range(15):
        asked = rng.sample(names, rng.randint(0, 6)) + [name()]
        expected = {e.id for e in entities
                    if e.namespace == "ns" and (e.canonical in asked or set(e.aliases) & set(asked))}  # fmt: skip
        assert {e.id for e in graph.find_entities("ns", asked)} == expected, asked
        named = graph.named_rows("ns", asked, T + 1, max_degree=100, limit=10)
        assert {e.id for e in named.entities} == expected, asked


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
