"""The embedded store's MENTIONS index answers as its Cypher statements do, after every kind of
write: stores, forgets and restores (followed in place), expiry, archives, merges, purges,
rollbacks and reflection (each of which drops it, to be read again)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import Memory, Settings
from engine.stores.base import EntityLink, GraphBatch
from engine.stores.cypher_graph import CypherGraphStore
from engine.stores.ladybug_graph import LadybugGraphStore
from engine.stores.mention_index import NamespaceMentions

T = 1_780_000_000.0  # 2026-05-28
NAMES = ["Alice Chen", "Bob Marley", "Atlas", "PostgreSQL", "Berlin", "Kestrel", "Redis", "Oslo"]
VERBS = ["met", "moved", "reviewed", "called", "deployed", "tested"]


def _items(count: int, *, start: int, namespace: str = "default", seed: int = 7) -> list[dict[str, object]]:
    """Episodes naming two or three of NAMES each, a minute apart (no two at one time)."""
    rng = random.Random(seed + start)
    items = []
    for n in range(start, start + count):
        a, b, c = rng.sample(NAMES, 3)
        tail = f" with {c}" if n % 2 else ""
        items.append({
            "content": f"{a} {rng.choice(VERBS)} {b}{tail} on day {n}.",
            "namespace": namespace, "occurred_at": T + 60 * n, "session_id": f"s{n % 3}",
        })  # fmt: skip
    return items


def _key(link: EntityLink) -> tuple[str, str, str, int]:
    return (link.episode_id, link.entity_id, link.entity_name, link.degree)


def _ids(graph: LadybugGraphStore, namespace: str) -> tuple[list[str], list[str]]:
    episodes = [str(row[0]) for row in graph._run(graph._q.index_episodes, {"ns": namespace})]
    entities = [str(row[0]["id"]) for row in graph._run(graph._q.index_entities, {"ns": namespace})]
    return episodes, entities


def _assert_agrees(memory: Memory, namespace: str, now: float) -> None:
    """Every read the index serves equals the statement's, on the graph as it is."""
    graph = memory._core.graph
    assert isinstance(graph, LadybugGraphStore)
    episodes, entities = _ids(graph, namespace)
    assert episodes and entities
    for max_degree in (1, 3, 10_000):
        for chosen in (episodes, episodes[::3], episodes[:1]):
            indexed = graph.entity_links(namespace, chosen, now, max_degree)
            cypher = CypherGraphStore.entity_links(graph, namespace, chosen, now, max_degree)
            assert sorted(map(_key, indexed)) == sorted(map(_key, cypher))
    for chosen in ([*entities, "no-such-entity"], entities[:2], *([e] for e in entities)):
        for limit in (1, 4, 10_000):
            indexed = graph.episodes_mentioning(namespace, chosen, now, limit)
            cypher = CypherGraphStore.episodes_mentioning(graph, namespace, chosen, now, limit)
            # Newest first; one episode's edges tie in time, so only their set is fixed.
            assert [link.episode_id for link in indexed] == [link.episode_id for link in cypher]
            if limit == 10_000:
                assert sorted(map(_key, indexed)) == sorted(map(_key, cypher))
    facts = graph.facts_about(namespace, entities, include_closed=False)
    assert facts == CypherGraphStore.facts_about(graph, namespace, entities, include_closed=False)
    rows = graph._run(graph._q.index_episodes, {"ns": namespace})
    hashes = [str(row[5]) for row in rows] + ["0" * 64]
    for chosen in (hashes, hashes[::4], hashes[-1:]):
        assert graph.find_by_hash(namespace, chosen, now) == CypherGraphStore.find_by_hash(
            graph, namespace, chosen, now
        )
    nodes = [row[0] for row in graph._run(graph._q.index_entities, {"ns": namespace})]
    names = sorted({str(n["canonical"]) for n in nodes} | {str(a) for n in nodes for a in n["aliases"] or []})
    for chosen in ([*names, "no such name"], names[::2], names[-1:]):
        assert graph.find_entities(namespace, chosen) == CypherGraphStore.find_entities(graph, namespace, chosen)
    assert graph._mentions is not None and graph._mentions.get(namespace) is not None


def test_the_index_follows_stores_in_place_and_agrees(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    memory.store_many(_items(30, start=0))
    now = T + 86_400
    _assert_agrees(memory, "default", now)
    built = memory._core.graph._mentions.get("default")  # type: ignore[attr-defined]
    links = sum(len(e.entities) for e in built.episodes.values())
    assert links >= 60  # two or more entities an episode: the test walks a real graph

    graph = memory._core.graph
    assert isinstance(graph, LadybugGraphStore)
    statements: list[str] = []
    execute = graph._execute

    def counted(query: str, params: Any, *, write: bool = True) -> object:
        statements.append(query)
        return execute(query, params, write=write)

    monkeypatch.setattr(graph, "_execute", counted)
    memory.store_many(_items(10, start=30))
    assert graph._q.find_by_hash.text not in statements  # duplicates looked up in the index
    memory.recall("What did Alice Chen say about Atlas?")
    assert graph._q.find_entities.text not in statements  # and entities by name, for both
    monkeypatch.undo()
    memory.store("Alice Chen and Kestrel met in Oslo again.", occurred_at=T + 60 * 100)
    # Told late: it goes between older episodes, not after the newest.
    memory.store("Atlas and Redis met in Berlin long ago.", occurred_at=T + 60 * 5 + 30)
    assert memory._core.graph._mentions.get("default") is built  # type: ignore[attr-defined]
    _assert_agrees(memory, "default", now + 86_400)


def test_edges_come_newest_first_ties_by_episode_then_entity_however_they_arrived() -> None:
    episodes = [(i, at, None, None, None, "", at) for i, at in (("e2", T), ("e3", T + 60), ("e1", T))]
    mentions = [("e2", "x", "X", 3), ("e1", "x", "X", 3), ("e3", "x", "X", 3), ("e1", "y", "Y", 1)]
    built = NamespaceMentions.from_rows(episodes, [], mentions, active_facts=False)
    order = [(link.episode_id, link.entity_id) for link in built.episodes_mentioning(["y", "x"], T, 10)]
    assert order == [("e3", "x"), ("e1", "x"), ("e1", "y"), ("e2", "x")]
    built.add_episode("e0", T - 60, None, None, None)
    built.add_episode("e4", T + 30, None, None, None)
    for episode_id in ("e0", "e4"):
        built.add_mention(episode_id, "x")  # one older than all, one in the middle
    assert [link.episode_id for link in built.episodes_mentioning(["x"], T, 10)] == ["e3", "e4", "e1", "e2", "e0"]
    assert [link.episode_id for link in built.episodes_mentioning(["x"], T, 2)] == ["e3", "e4"]
    built.episodes["e4"].deleted_at = T
    assert [link.episode_id for link in built.episodes_mentioning(["x"], T, 2)] == ["e3", "e1"]


def test_entities_a_batch_merges_are_found_as_the_statement_finds_them(memory: Memory) -> None:
    """Mention counts add up, aliases join (first seen first), first/last seen widen, and a
    name two entities share finds both, oldest first: in place, without reading it again."""
    memory.store_many(_items(12, start=0))
    now = T + 86_400
    _assert_agrees(memory, "default", now)
    graph = memory._core.graph
    built = graph._mentions.get("default")  # type: ignore[attr-defined]
    [atlas] = graph.find_entities("default", ["atlas"])
    episode = memory.get(memory.list(limit=1)[0].id).model_copy(update={"id": "late", "occurred_at": T + 9e4})
    more = atlas.model_copy(update={"aliases": ["atlas db", "the atlas"], "mention_count": 2,
                                    "first_seen": atlas.first_seen - 50, "last_seen": T + 9e4})  # fmt: skip
    # Older than every other entity, and named by Atlas's new alias too.
    rival = atlas.model_copy(update={"id": "rival", "name": "Atlas DB", "canonical": "atlas db",
                                     "aliases": ["zeph"], "created_at": T - 100})  # fmt: skip
    graph.write(GraphBatch(episodes=[episode], entities=[more, rival],
                           mentions=[("late", atlas.id, 1), ("late", "rival", 1)]))  # fmt: skip
    assert graph._mentions.get("default") is built  # type: ignore[attr-defined]
    [merged] = graph.find_entities("default", ["the atlas"])
    assert merged.mention_count == atlas.mention_count + 2
    assert merged.aliases == [*atlas.aliases, "atlas db", "the atlas"]
    assert (merged.first_seen, merged.last_seen) == (atlas.first_seen - 50, T + 9e4)
    assert [e.id for e in graph.find_entities("default", ["atlas db"])] == ["rival", atlas.id]
    _assert_agrees(memory, "default", now)
    merged.aliases.append("changed by a caller")  # a copy: the index does not see it
    assert graph.find_entities("default", ["atlas"])[0].aliases == [*atlas.aliases, "atlas db", "the atlas"]


def test_it_agrees_after_every_other_kind_of_write(memory: Memory) -> None:
    stored = memory.store_many(_items(30, start=0))
    now = T + 86_400
    _assert_agrees(memory, "default", now)

    built = memory._core.graph._mentions.get("default")  # type: ignore[attr-defined]
    memory.forget(stored[0].id)  # forgetting and restoring are followed in place
    _assert_agrees(memory, "default", now)
    again = memory.store(memory.get(stored[0].id).content)  # its forgotten twin is no duplicate
    assert again.status == "stored"
    _assert_agrees(memory, "default", now)
    memory.restore(stored[0].id)  # two live episodes of one hash: the first created answers
    _assert_agrees(memory, "default", now)
    assert memory.store(memory.get(again.id).content).id == stored[0].id
    assert memory._core.graph._mentions.get("default") is built  # type: ignore[attr-defined]
    memory.purge([stored[1].id], dry_run=False)
    _assert_agrees(memory, "default", now)
    memory.merge_entities("Atlas", "Kestrel")
    _assert_agrees(memory, "default", now)

    expiring = memory.store("Redis moved to Berlin for a day.", occurred_at=T + 60 * 50,
                            expires_at=T + 60 * 51)  # fmt: skip
    _assert_agrees(memory, "default", T + 60 * 50.5)  # live
    _assert_agrees(memory, "default", T + 60 * 52)  # expired: out of both
    archived = memory.maintain()
    assert expiring.id in archived
    _assert_agrees(memory, "default", now)


def test_a_rolled_back_write_leaves_no_trace_in_it(memory: Memory) -> None:
    memory.store_many(_items(12, start=0))
    now = T + 86_400
    _assert_agrees(memory, "default", now)
    graph = memory._core.graph
    [entity] = graph.find_entities("default", ["atlas"])
    ghost = memory.get(memory.list(limit=1)[0].id).model_copy(update={"id": "ghost", "occurred_at": T + 9e6})
    with pytest.raises(RuntimeError), graph.transaction():
        graph.write(GraphBatch(episodes=[ghost], mentions=[("ghost", entity.id, 1)]))
        assert "ghost" in {link.episode_id for link in graph.episodes_mentioning("default", [entity.id], now, 5)}
        raise RuntimeError("the vector mirror failed")
    assert "ghost" not in {link.episode_id for link in graph.episodes_mentioning("default", [entity.id], now, 5)}
    _assert_agrees(memory, "default", now)


def test_namespaces_are_indexed_apart_and_facts_are_asked_for_once_written(memory: Memory) -> None:
    memory.store_many(_items(20, start=0))
    memory.store_many(_items(20, start=0, namespace="other", seed=11))
    now = T + 86_400
    _assert_agrees(memory, "default", now)
    _assert_agrees(memory, "other", now)
    graph = memory._core.graph
    assert isinstance(graph, LadybugGraphStore) and graph._mentions is not None
    other = {link.episode_id for link in graph.episodes_mentioning("other", _ids(graph, "other")[1], now, 10_000)}
    mine = {link.episode_id for link in graph.episodes_mentioning("default", _ids(graph, "default")[1], now, 10_000)}
    assert other and mine and not other & mine

    held = graph._mentions.get("default")
    assert held is not None and not held.active_facts
    memory.reflect(force=True)
    _assert_agrees(memory, "default", now + 86_400)


def test_it_can_be_turned_off(settings: Settings) -> None:
    off = settings.model_copy(update={"graph_index_episodes": 0})
    with Memory.open(settings=off) as memory:
        memory.store_many(_items(8, start=0))
        graph = memory._core.graph
        assert isinstance(graph, LadybugGraphStore) and graph._mentions is None
        cards = memory.recall("Alice Chen", top_k=3)
        assert cards and {card.trace.graph_reads for card in cards if card.trace} == {"statements"}
        assert memory.stats(namespace="default").graph_reads == "statements"


def test_recall_and_stats_say_when_a_namespace_is_too_large_to_index(settings: Settings) -> None:
    """Past `graph_index_episodes` a namespace falls back to statements with the same cards,
    and says so; one within the bound keeps its index."""
    bounded = settings.model_copy(update={"graph_index_episodes": 12})
    now = T + 86_400
    with Memory.open(settings=bounded) as memory:
        memory.store_many(_items(6, start=0, namespace="small") + _items(20, start=0, namespace="big"))
        assert memory.stats(namespace="big").graph_reads == "statements"  # told before any recall
        assert memory.stats().graph_reads is None  # all namespaces: no one way
        for namespace, reads in (("small", "index"), ("big", "statements")):
            cards = memory.recall("Who did Alice Chen meet in Berlin?", namespace=namespace, top_k=5, now=now)
            assert cards and {c.trace.graph_reads for c in cards if c.kind != "digest" and c.trace} == {reads}
            assert memory.stats(namespace=namespace).graph_reads == reads
        big = [c.id for c in memory.recall("Who did Alice Chen meet in Berlin?", namespace="big", top_k=5, now=now)]
    with Memory.open(settings=settings.model_copy(update={"graph_index_episodes": 100})) as memory:
        held = memory.recall("Who did Alice Chen meet in Berlin?", namespace="big", top_k=5, now=now)
        assert [c.id for c in held] == big and held[0].trace and held[0].trace.graph_reads == "index"


def test_it_holds_at_most_its_bound_least_recently_recalled_out(settings: Settings) -> None:
    bounded = settings.model_copy(update={"graph_index_episodes": 45})
    with Memory.open(settings=bounded) as memory:
        for namespace, count in (("a", 20), ("b", 20), ("c", 30), ("big", 50)):
            memory.store_many(_items(count, start=0, namespace=namespace))
        index = memory._core.graph._mentions  # type: ignore[attr-defined]
        now = T + 86_400
        _assert_agrees(memory, "a", now)
        _assert_agrees(memory, "b", now)  # 40 episodes held
        _assert_agrees(memory, "a", now)  # a is now the more recent
        _assert_agrees(memory, "c", now)  # 70 > 45: b goes first, then a
        assert (index.get("a"), index.get("b")) == (None, None) and index.get("c") is not None
        # A namespace over the bound on its own is served by the statements, and agrees.
        graph = memory._core.graph
        assert isinstance(graph, LadybugGraphStore)
        episodes, entities = _ids(graph, "big")
        assert len(episodes) == 50
        assert sorted(map(_key, graph.episodes_mentioning("big", entities, now, 10_000))) == sorted(
            map(_key, CypherGraphStore.episodes_mentioning(graph, "big", entities, now, 10_000))
        )
        assert index.get("big") is None and not index.admits("big")
        assert index.get("c") is not None  # reading "big" evicted nothing
