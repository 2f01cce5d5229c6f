"""Sentence vectors: a sentence inside a long turn is found by what it says alone, through
ingest, repair and recall (real MiniLM, real Qdrant Edge)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import Memory, Settings
from engine.ingest.pipeline import episode_vectors
from engine.ingest.sentences import mean_vector, sentences_to_embed
from engine.models import MemoryCard
from engine.rebuild import rebuild_vectors

LONG = (
    "Calvin: Hi Dave! Nice to hear from you. Since last chat, some things have happened. "
    "I had a little car accident last Friday, kinda upsetting but no one was hurt. "
    "Anyway, the studio sessions went great and the new track is almost done."
)
QUESTION = "When did Calvin have a car accident?"


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


def _vector_score(card: MemoryCard) -> float:
    assert card.trace is not None
    return next(hit.score for hit in card.trace.channels if hit.channel == "vector")


def _card(memory: Memory, episode_id: str) -> MemoryCard:
    cards = {card.id: card for card in memory.recall(QUESTION, namespace="n", top_k=5)}
    return cards[episode_id]


def _open(path: Path, **settings: Any) -> Memory:
    return Memory.open(settings=Settings(data_dir=path, importance_threshold=0.0, **settings))


# How far a stored vector's cosine may stray from one computed alone. A stored turn is embedded
# in a batch (bf16 on torch where the settings choose it) while a query always runs in float32,
# so the two agree to a cosine of ~0.9999 under bf16 and to float rounding under float32.
TOLERANCE = {"float32": 1e-4, "bfloat16": 3e-3}


# Both precisions on every machine: bf16 is emulated where the CPU lacks AVX-512 BF16.
@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_a_long_turn_scores_its_best_sentence_and_a_short_one_its_whole(
    tmp_path: Path, precision: str
) -> None:
    with _open(tmp_path, embedder_precision=precision) as memory:
        long_id, short_id = [
            r.id for r in memory.store_many(
                [{"content": LONG, "namespace": "n"}, {"content": "Calvin: I restore old cars.", "namespace": "n"}]
            )
        ]  # fmt: skip
        embed = memory._core.embedder.embed
        question = embed([QUESTION])[0]
        pieces = sentences_to_embed(LONG, memory.settings.sentence_vectors_max)
        sentences = [embed([piece])[0] for piece in pieces]  # one at a time: float32 on ONNX
        best = max(_cosine(question, s) for s in sentences)
        whole = _cosine(question, embed([LONG])[0])
        assert best > whole + 0.1  # the accident is a fifth of the turn
        scored = _vector_score(_card(memory, long_id))
        # The property: the turn scores as its best sentence, not as its whole.
        assert abs(scored - best) < abs(scored - whole)
        assert math.isclose(scored, best, abs_tol=TOLERANCE[precision])
        short = _vector_score(_card(memory, short_id))
        assert math.isclose(
            short, _cosine(question, embed(["Calvin: I restore old cars."])[0]),
            abs_tol=TOLERANCE[precision],
        )  # fmt: skip


def test_without_sentence_vectors_the_long_turn_scores_its_whole(tmp_path: Path) -> None:
    with _open(tmp_path, sentence_vectors_max=0, embedder_precision="float32") as memory:
        long_id = memory.store_many([{"content": LONG, "namespace": "n"}])[0].id
        whole = _cosine(memory._core.embedder.embed([QUESTION])[0], memory._core.embedder.embed([LONG])[0])
        assert math.isclose(_vector_score(_card(memory, long_id)), whole, abs_tol=1e-4)


def test_a_rebuilt_vector_store_gives_stored_turns_their_sentence_vectors(tmp_path: Path) -> None:
    """As after an upgrade: turns stored without sentence vectors get them from a rebuild."""
    with _open(tmp_path, sentence_vectors_max=0, embedder_precision="float32") as memory:
        long_id = memory.store_many([{"content": LONG, "namespace": "n"}])[0].id
        whole = _vector_score(_card(memory, long_id))
        settings = memory.settings.model_copy(update={"sentence_vectors_max": 16})
    assert rebuild_vectors(settings=settings).repaired
    with Memory.open(settings=settings) as memory:
        assert _vector_score(_card(memory, long_id)) > whole + 0.1


def test_without_a_pass_of_its_own_a_turn_takes_its_sentences_mean_in_ingest_and_repair(tmp_path: Path) -> None:
    short = "Calvin: I restore old cars."
    with _open(tmp_path, embed_whole=False, embedder_precision="float32") as memory:
        long_id, short_id = [r.id for r in memory.store_many([{"content": c, "namespace": "n"} for c in (LONG, short)])]
        embed = memory._core.embedder.embed
        sentences = [embed([piece])[0] for piece in sentences_to_embed(LONG, memory.settings.sentence_vectors_max)]
        stored = memory._core.vectors.sentence_vectors([long_id, short_id])
        assert np.allclose(stored[long_id][1:], sentences, atol=1e-4)
        assert np.allclose(stored[long_id][0], mean_vector(sentences), atol=1e-4)
        assert _cosine(stored[long_id][0], embed([LONG])[0]) < 0.999  # not the whole's own pass
        assert np.allclose(stored[short_id], [embed([short])[0]], atol=1e-4)  # one sentence: its own
        settings = memory.settings
    assert rebuild_vectors(settings=settings).repaired
    with Memory.open(settings=settings) as memory:
        assert np.allclose(memory._core.vectors.sentence_vectors([long_id])[long_id][0], mean_vector(sentences), atol=1e-4)


@pytest.mark.parametrize("embed_whole", [False, True])
def test_a_repair_embeds_a_turn_once_each_way_ingest_does(tmp_path: Path, embed_whole: bool) -> None:
    """Doctor, import and restore embed what ingest embeds: a turn of several sentences gets
    its own pass only under `embed_whole`; a vector at hand (an export's) is not made again."""
    short = "Calvin: I restore old cars."
    with _open(tmp_path, embed_whole=embed_whole, embedder_precision="float32") as memory:
        embedder, settings = memory._core.embedder, memory.settings
        sent: list[str] = []

        class Counting:
            multilingual = embedder.multilingual

            def embed(self, texts: list[str]) -> list[list[float]]:
                sent.extend(texts)
                return embedder.embed(texts)

        at_hand = [0.0] * len(embedder.embed([short])[0])
        at_hand[0] = 1.0
        found = episode_vectors([LONG, short, "Dana: ok thanks"], Counting(), settings, known={2: at_hand})  # type: ignore[arg-type]
    pieces = sentences_to_embed(LONG, settings.sentence_vectors_max)
    assert sorted(sent) == sorted(([LONG] if embed_whole else []) + [short, *pieces])
    assert found[2].dense == at_hand and found[1].sentences == [] and len(found[0].sentences) == len(pieces)
    assert np.allclose(found[1].dense, embedder.embed([short])[0], atol=1e-4)
    own = embedder.embed([LONG])[0] if embed_whole else mean_vector(found[0].sentences)
    assert np.allclose(found[0].dense, own, atol=1e-4)
