"""store_many's batches: the next one embeds while one is written, and failures stay in turn."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from engine import Memory, Settings, WriteFailed
from engine.embed import MiniLMEmbedder
from engine.ingest import writer as writer_module
from engine.ingest.batch_texts import batch_texts
from engine.ingest.writer import Writer
from engine.stores.ladybug_graph import LadybugGraphStore
from engine.stores.qdrant_edge_vectors import QdrantEdgeVectorStore
from tests.test_memory import FailingVectors

FIRST = [f"Kestrel milestone {i} ships on day {i + 1}." for i in range(3)]
SECOND = [f"Osprey review {i} is booked for week {i + 2}." for i in range(3)]


def _settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", store_batch_size=3, embed_part_size=3)


def test_the_next_batch_embeds_while_this_one_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embed, write_locked = MiniLMEmbedder.embed, Writer._write_locked
    second_embedding = threading.Event()
    seen_while_writing: list[bool] = []

    def spied_embed(self: MiniLMEmbedder, texts: list[str]) -> list[list[float]]:
        if set(texts) <= set(SECOND) and threading.current_thread().name.startswith("hindsight-embed"):
            second_embedding.set()
        return embed(self, texts)

    def spied_write(self: Writer, texts: list, *args: Any) -> object:  # type: ignore[type-arg]
        if not seen_while_writing:  # the first batch's write waits for the second's embedding
            seen_while_writing.append(second_embedding.wait(timeout=20))
        return write_locked(self, texts, *args)

    monkeypatch.setattr(MiniLMEmbedder, "embed", spied_embed)
    monkeypatch.setattr(Writer, "_write_locked", spied_write)
    with Memory.open(settings=_settings(tmp_path)) as memory:
        results = memory.store_many([{"content": text} for text in FIRST + SECOND])
        assert [r.status for r in results] == ["stored"] * 6
        assert seen_while_writing == [True]
        # each episode keeps its own content, and recall finds it by it
        for result, text in zip(results, FIRST + SECOND, strict=True):
            assert memory.get(result.id).content == text
        assert memory.recall(SECOND[1], top_k=1)[0].id == results[4].id


def test_a_failed_write_drops_the_batch_embedding_ahead(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = MiniLMEmbedder()
    vectors = FailingVectors(QdrantEdgeVectorStore(settings.vectors_dir / "v", embedder.dimension))
    graph = LadybugGraphStore(settings.graph_path)
    embed = MiniLMEmbedder.embed
    embedding: list[int] = []  # parts being embedded right now

    def counted_embed(self: MiniLMEmbedder, texts: list[str]) -> list[list[float]]:
        embedding.append(1)
        try:
            time.sleep(0.05)  # long enough for the write ahead to fail meanwhile
            return embed(self, texts)
        finally:
            embedding.pop()

    monkeypatch.setattr(MiniLMEmbedder, "embed", counted_embed)
    tuned = settings.model_copy(update={"store_batch_size": 3, "embed_part_size": 1})
    facts = QdrantEdgeVectorStore(tuned.vectors_dir / "f", embedder.dimension)
    digests = QdrantEdgeVectorStore(tuned.vectors_dir / "d", embedder.dimension)
    with Memory(graph=graph, vectors=vectors, facts=facts, digests=digests, embedder=embedder, settings=tuned) as memory:
        vectors.fail = True
        with pytest.raises(WriteFailed, match=r"\(0 episodes before it are stored\)"):
            memory.store_many([{"content": text} for text in FIRST + SECOND])
        assert embedding == []  # the model thread has left the batch ahead when it returns
        vectors.fail = False
        assert memory.stats().episodes == 0 and vectors.count("default") == 0
        again = memory.store_many([{"content": text} for text in FIRST + SECOND])
        assert [r.status for r in again] == ["stored"] * 6


def test_a_batch_that_fails_before_its_models_fails_in_its_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def failing_on_the_second_batch(requests: list, *args: object) -> list:  # type: ignore[type-arg]
        calls.append(len(requests))
        if len(calls) == 2:
            raise ValueError("the redaction pattern broke (simulated)")
        return batch_texts(requests, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(writer_module, "batch_texts", failing_on_the_second_batch)
    with Memory.open(settings=_settings(tmp_path)) as memory:
        with pytest.raises(ValueError, match="simulated"):
            memory.store_many([{"content": text} for text in FIRST + SECOND])
        # It was found before the first batch was written; the first is stored all the same.
        assert calls == [3, 3]
        assert sorted(e.content for e in memory.list()) == sorted(FIRST)
