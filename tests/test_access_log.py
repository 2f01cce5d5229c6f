"""The embedded graph writes recall's access marks many recalls at once, and nothing that
reads them ever sees them missing: live episodes overlay them, every other read, Cypher and
close write them first. (Maintenance, which reads them to archive, is
`test_lifecycle.test_recall_records_access_and_keeps_accessed_memories`, on the default.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import Memory, Settings
from engine.stores.ladybug_graph import LadybugGraphStore

FACTS = [
    "The Kestrel deploy key lives in the vault.",
    "Alice moved the Atlas standup to Tuesdays.",
    "The Berlin office closes early on Fridays.",
]


class Writes:
    """Counts the access-mark statements the graph runs, and its checkpoints."""

    def __init__(self, graph: LadybugGraphStore) -> None:
        self.count = self.checkpoints = 0
        marks = {graph._q.mark_accessed.text, graph._q.mark_accessed_rows.text}
        execute = graph._execute

        def counting(query: str, params: object, *, write: bool = True) -> list[list[object]]:
            self.count += query in marks
            self.checkpoints += query == "CHECKPOINT"
            return execute(query, params, write=write)  # type: ignore[arg-type]

        graph._execute = counting  # type: ignore[method-assign]


def _open(settings: Settings, batch: int) -> Memory:
    return Memory.open(settings=settings.model_copy(update={"access_batch": batch}))


@pytest.fixture
def memory(settings: Settings) -> Iterator[Memory]:
    with _open(settings, 256) as opened:
        yield opened


def _stored(memory: Memory, namespace: str = "default") -> list[str]:
    return [memory.store(text, namespace=namespace).id for text in FACTS]


def _recalled(memory: Memory, query: str, namespace: str = "default") -> str:
    [card] = memory.recall(query, top_k=1, namespace=namespace)
    return card.id


def test_marks_wait_and_live_reads_see_them(memory: Memory) -> None:
    kestrel = _stored(memory)[0]
    graph = memory._core.graph
    assert isinstance(graph, LadybugGraphStore)
    writes = Writes(graph)
    for _ in range(3):
        assert _recalled(memory, "Kestrel deploy key") == kestrel
    assert writes.count == 0  # held, not written per recall
    [live] = graph.live_episodes("default", [kestrel], now=2e9)
    assert live.access_count == 3 and live.last_accessed_at is not None
    assert writes.count == 0  # recall's own read overlays them
    episode = memory.get(kestrel)  # any other read writes them first
    assert writes.count == 1
    assert (episode.access_count, episode.last_accessed_at) == (3, live.last_accessed_at)
    assert memory.get(kestrel).access_count == 3  # written once, not again


def test_cypher_and_close_write_them(settings: Settings) -> None:
    with _open(settings, 256) as memory:
        ids = _stored(memory)
        atlas = _recalled(memory, "Atlas standup day")
        query = "MATCH (e:Episode) WHERE e.namespace = $namespace RETURN e.id, e.access_count"
        counts = dict(memory.cypher(query).rows)
        assert counts == {i: int(i == atlas) for i in ids}
        berlin = _recalled(memory, "Berlin office Friday")
    with _open(settings, 256) as memory:  # closing wrote the second mark
        assert memory.get(berlin).access_count == 1 and memory.get(atlas).access_count == 1


def test_enough_marks_are_written_at_once(settings: Settings) -> None:
    with _open(settings, 2) as memory:
        kestrel, atlas, _ = _stored(memory)
        writes = Writes(memory._core.graph)  # type: ignore[arg-type]
        _recalled(memory, "Kestrel deploy key")
        _recalled(memory, "Kestrel deploy key")  # the same episode: still one waiting
        assert writes.count == 0
        _recalled(memory, "Atlas standup day")  # two episodes: due
        assert (writes.count, writes.checkpoints) == (1, 1)
        assert memory.get(kestrel).access_count == 2 and memory.get(atlas).access_count == 1
        assert (writes.count, writes.checkpoints) == (1, 1)  # a read writes none, folds none


def test_a_checkpoint_keeps_the_index(settings: Settings) -> None:
    with _open(settings, 2) as memory:
        _stored(memory)
        _recalled(memory, "Kestrel deploy key")
        graph = memory._core.graph
        assert isinstance(graph, LadybugGraphStore) and graph._mentions is not None
        held = graph._mentions.get("default")
        assert held is not None
        _recalled(memory, "Atlas standup day")  # due: written and checkpointed
        assert graph._mentions.get("default") is held


def test_one_writes_each_recall_at_once(settings: Settings) -> None:
    with _open(settings, 1) as memory:
        kestrel = _stored(memory)[0]
        writes = Writes(memory._core.graph)  # type: ignore[arg-type]
        _recalled(memory, "Kestrel deploy key")
        assert (writes.count, writes.checkpoints) == (1, 0)
        assert memory.get(kestrel).access_count == 1


def test_marks_stay_in_their_namespace(memory: Memory) -> None:
    mine, theirs = _stored(memory, "a"), _stored(memory, "b")
    assert _recalled(memory, "Kestrel deploy key", "a") == mine[0]
    assert _recalled(memory, "Kestrel deploy key", "b") == theirs[0]
    assert _recalled(memory, "Kestrel deploy key", "b") == theirs[0]
    assert memory.get(mine[0], namespace="a").access_count == 1
    assert memory.get(theirs[0], namespace="b").access_count == 2
    assert all(memory.get(i, namespace="b").access_count == 0 for i in theirs[1:])

