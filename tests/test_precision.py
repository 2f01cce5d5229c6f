"""The same memory recalled under float32 and under int8 (the default) or bf16 gives the same
cards, up to what each precision moves a score.

int8 vectors sit within a cosine of ~0.99 of float32's (queries and stored texts alike), which
moves a card's final score by up to ~0.02; bf16 batches agree with float32 to ~0.9999, a few
thousandths. Recall must not depend on the precision beyond that: only cards that close may
trade places or be in one list and not the other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from engine import Memory, Settings
from engine.demo import DEMO_QUERIES, sample_episodes
from engine.models import MemoryCard

NOW = "2026-11-29T12:00:00Z"
QUESTIONS = (*DEMO_QUERIES, "Who owns the mobile app?", "What did we say about geospatial indexes?")
# The largest difference each precision may make to a card's final score, and so the closest
# two cards' float32 scores may be and still swap places under it.
TOLERANCE = {"int8": 0.025, "bfloat16": 0.005}


def _recalls(path: Path, precision: Literal["float32", "int8", "bfloat16"]) -> dict[str, list[MemoryCard]]:
    settings = Settings(data_dir=path, embedder_precision=precision)
    with Memory.open(settings=settings) as memory:
        memory.store_many([{**item, "namespace": "p"} for item in sample_episodes()])
        return {q: memory.recall(q, namespace="p", top_k=8, now=NOW) for q in QUESTIONS}


def _same_cards(path: Path, precision: Literal["int8", "bfloat16"]) -> None:
    # Ids differ between the two stores: a card is known by its content.
    exact = _recalls(path / "float32", "float32")
    other = _recalls(path / precision, precision)
    tolerance = TOLERANCE[precision]
    for question in QUESTIONS:
        wide = {card.content: card.score for card in exact[question]}
        narrow = {card.content: card.score for card in other[question]}
        shared = wide.keys() & narrow.keys()
        # Only a card at the cut-off, as close as the precision allows to the one it traded
        # places with, may be in one list and not the other.
        floor = min(wide.values())
        for text in wide.keys() ^ narrow.keys():
            score = wide.get(text, narrow.get(text))
            assert score is not None and score <= floor + tolerance, (question, text[:40])
        for text in shared:
            assert abs(wide[text] - narrow[text]) <= tolerance, (question, text[:40])
        order = [text for text in wide if text in shared]
        reordered = sorted(order, key=lambda text: -narrow[text])
        for first, second in zip(order, reordered, strict=True):
            if first != second:  # a swap only between cards the precision cannot tell apart
                assert abs(wide[first] - wide[second]) <= tolerance, question
        top, top_other = exact[question][0].content, other[question][0].content
        assert top == top_other or abs(wide[top] - wide.get(top_other, 0.0)) <= tolerance


def test_float32_and_int8_recall_the_same_cards(tmp_path: Path) -> None:
    _same_cards(tmp_path, "int8")


# On a CPU without AVX-512 BF16 the bf16 batches are emulated: slower (~20 s here), the same
# numbers, so the case runs on every CPU.
def test_float32_and_bf16_recall_the_same_cards(tmp_path: Path) -> None:
    _same_cards(tmp_path, "bfloat16")
