"""The embedded store's episode cache answers `live_episodes` as the statement does, after
every kind of write: stores, duplicates' touches, access marks, forgets, restores, expiry,
archives, purges, merges and rollbacks; and a recall it serves reads no statement for them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import Memory, Settings
from engine.models import Episode
from engine.stores.base import GraphBatch
from engine.stores.cypher_graph import CypherGraphStore
from engine.stores.episode_cache import EpisodeCache
from engine.stores.ladybug_graph import LadybugGraphStore

T = 1_780_000_000.0  # 2026-05-28
NOW = T + 86_400


@pytest.fixture
def memory(settings: Settings) -> Iterator[Memory]:
    # Access marks written every 4 episodes, so that a few recalls write some.
    with Memory.open(settings=settings.model_copy(update={"access_batch": 4})) as opened:
        yield opened


def _store(memory: Memory, count: int, *, start: int = 0) -> list[str]:
    items = [
        {"content": f"Priya reviewed the Atlas runbook, part {n}.", "occurred_at": T + 60 * n,
         "session_id": "s1"}
        for n in range(start, start + count)
    ]  # fmt: skip
    return [r.id for r in memory.store_many(items)]


def _held(graph: LadybugGraphStore) -> EpisodeCache:
    assert graph._episodes is not None
    return graph._episodes


def _graph(memory: Memory) -> LadybugGraphStore:
    graph = memory._core.graph
    assert isinstance(graph, LadybugGraphStore) and graph._episodes is not None
    return graph


def _by_id(episodes: list[Episode]) -> dict[str, Episode]:
    return {e.id: e for e in episodes}


def _assert_agrees(memory: Memory, ids: list[str], now: float = NOW) -> None:
    """The store's answer (cached or read) is the statement's on the graph as it is, with the
    access marks not yet written laid over both."""
    graph = _graph(memory)
    answer = graph.live_episodes("default", ids, now)
    read = CypherGraphStore.live_episodes(graph, "default", ids, now)
    if graph._access is not None:
        read = graph._access.overlay("default", read)
    assert _by_id(answer) == _by_id(read)
    assert _by_id(graph.live_episodes("default", ids, now)) == _by_id(read)  # and from the cache


def _statements_run(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements the embedded graph runs from now on, in order."""
    statements: list[str] = []
    execute = LadybugGraphStore._execute

    def counted(self: LadybugGraphStore, query: str, params: object, *, write: bool = True) -> object:
        statements.append(query)
        return execute(self, query, params, write=write)  # type: ignore[arg-type]

    monkeypatch.setattr(LadybugGraphStore, "_execute", counted)
    return statements


def test_a_recall_reads_held_episodes_without_a_statement(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(memory, 30)
    graph = _graph(memory)
    first = memory.recall("Atlas runbook", now=NOW)
    assert first and len(_held(graph)) > 0
    statements = _statements_run(monkeypatch)
    again = memory.recall("Atlas runbook", now=NOW)
    assert [c.id for c in again] == [c.id for c in first]
    assert graph._q.live_episodes.text not in statements


def test_every_write_that_changes_an_episode_is_seen(memory: Memory) -> None:
    ids = _store(memory, 12)
    _assert_agrees(memory, ids)  # now held

    memory.store("Priya reviewed the Atlas runbook, part 3.", occurred_at=T + 9_000)
    _assert_agrees(memory, ids)  # a duplicate touched part 3: last_seen, sources, count
    for _ in range(3):
        memory.recall("Atlas runbook part", now=NOW)  # enough marks to be written
    _assert_agrees(memory, ids)
    memory.forget(ids[0])
    _assert_agrees(memory, ids)
    memory.restore(ids[0])
    _assert_agrees(memory, ids)
    memory.purge([ids[1]], dry_run=False)
    _assert_agrees(memory, ids)
    memory.merge_entities("Atlas", "Priya")
    _assert_agrees(memory, ids)
    memory.recall("Atlas runbook part 5", now=NOW)
    memory.cypher("MATCH (ep:Episode) WHERE ep.namespace = $namespace RETURN count(ep)")  # writes held marks
    _assert_agrees(memory, ids)


def test_a_touched_episode_stays_held_as_the_touch_leaves_it(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A duplicate updates the held episode, not evicts it: the episodes people repeat are
    the ones recall asks for next. Twice in one batch, from another source, at an earlier
    time than the last sighting: each as the statement counts it."""
    ids = _store(memory, 4)
    again = "Priya reviewed the Atlas runbook, part 2."
    memory.store_many([{"content": again, "occurred_at": T + 9_000},
                       {"content": again, "occurred_at": T + 5_000, "metadata": {"source": "mcp"}}])  # fmt: skip
    memory.store(again, occurred_at=T + 1_000)
    graph = _graph(memory)
    assert {i for _, i in _held(graph)._held} == set(ids)
    held = _held(graph).get("default", ids[2])
    assert held is not None and held.access_count == 3 and held.last_seen == T + 9_000
    statements = _statements_run(monkeypatch)
    assert ids[2] in _by_id(graph.live_episodes("default", ids, NOW))
    assert graph._q.live_episodes.text not in statements
    _assert_agrees(memory, ids)


def test_expiry_and_archiving_are_seen(memory: Memory) -> None:
    ids = _store(memory, 6)
    expiring = memory.store("Dana moved Kestrel to Berlin for a day.", occurred_at=T, expires_at=T + 60)
    every = [*ids, expiring.id]
    _assert_agrees(memory, every, now=T + 30)  # held while live
    assert expiring.id not in _by_id(_graph(memory).live_episodes("default", every, T + 120))
    _assert_agrees(memory, every, now=T + 120)
    assert expiring.id in memory.maintain()
    _assert_agrees(memory, every, now=T + 30)  # archived: gone even at a time it was live


def test_a_rolled_back_episode_is_not_held(memory: Memory) -> None:
    ids = _store(memory, 3)
    graph = _graph(memory)
    ghost = memory.get(ids[0]).model_copy(update={"id": "ghost"})
    with pytest.raises(RuntimeError), graph.transaction():
        graph.write(GraphBatch(episodes=[ghost]))
        assert "ghost" in _by_id(graph.live_episodes("default", ["ghost"], NOW))
        raise RuntimeError("the vector mirror failed")
    assert graph.live_episodes("default", ["ghost", *ids], NOW) and "ghost" not in _by_id(
        graph.live_episodes("default", ["ghost"], NOW)
    )
    _assert_agrees(memory, [*ids, "ghost"])


def test_namespaces_are_held_apart_and_the_bound_holds(settings: Settings) -> None:
    bounded = settings.model_copy(update={"graph_cache_episodes": 5})
    with Memory.open(settings=bounded) as memory:
        mine = _store(memory, 8)
        other = memory.store("Priya reviewed the Atlas runbook.", namespace="other").id
        graph = _graph(memory)
        assert len(graph.live_episodes("default", mine, NOW)) == 8
        assert len(_held(graph)) == 5
        assert graph.live_episodes("default", [other], NOW) == []
        assert [e.id for e in graph.live_episodes("other", [other, *mine], NOW)] == [other]


def test_it_can_be_turned_off(settings: Settings) -> None:
    with Memory.open(settings=settings.model_copy(update={"graph_cache_episodes": 0})) as memory:
        _store(memory, 4)
        graph = memory._core.graph
        assert isinstance(graph, LadybugGraphStore) and graph._episodes is None
        assert memory.recall("Atlas runbook", now=NOW)


def test_a_stored_batch_is_held_as_the_graph_reads_it(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = [
        {"content": f"Priya reviewed the Atlas runbook, part {n}: 12.5% done, ¥{n}00.",
         "occurred_at": T + 60 * n, "session_id": "s1", "expires_at": T + 10**6,
         "metadata": {"zeta": [1, {"b": None, "a": "é"}], "alpha": n}}
        for n in range(8)
    ]  # fmt: skip
    ids = [r.id for r in memory.store_many(items)]
    graph = _graph(memory)
    assert {i for _, i in _held(graph)._held} == set(ids)  # held before any recall
    _assert_agrees(memory, ids)  # and as the statement reads them back

    statements = _statements_run(monkeypatch)
    assert memory.recall("Atlas runbook", now=NOW)
    assert graph._q.live_episodes.text not in statements
