"""The same memory recalled under float32 and under bf16 gives the same cards.

`embedder_precision="auto"` picks bf16 batches on a CPU with AVX-512 BF16 and float32 elsewhere,
so the machine decides which kernel stores a vector. Recall must not depend on it beyond what
bf16 allows: stored vectors agree with float32's to a cosine of ~0.9999, which moves a vector
score by a few thousandths and a fused score by less.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from engine import Memory, Settings
from engine.demo import DEMO_QUERIES, sample_episodes
from engine.embed import cpu_has_bf16
from engine.models import MemoryCard

NOW = "2026-11-29T12:00:00Z"
QUESTIONS = (*DEMO_QUERIES, "Who owns the mobile app?", "What did we say about geospatial indexes?")
# The largest difference bf16 may make to a card's final score, and so the closest two cards'
# float32 scores may be and still swap places under bf16.
SCORE_TOLERANCE = 0.005


def _recalls(path: Path, precision: Literal["float32", "bfloat16"]) -> dict[str, list[MemoryCard]]:
    settings = Settings(data_dir=path, embedder_precision=precision)
    with Memory.open(settings=settings) as memory:
        memory.store_many([{**item, "namespace": "p"} for item in sample_episodes()])
        return {q: memory.recall(q, namespace="p", top_k=8, now=NOW) for q in QUESTIONS}


@pytest.mark.skipif(
    not cpu_has_bf16(),
    reason="this CPU has no AVX-512 BF16, so the settings never choose bf16 here (emulated "
    "bf16 is covered by tests/test_embed.py and tests/test_sentence_recall.py)",
)
def test_float32_and_bf16_recall_the_same_cards(tmp_path: Path) -> None:
    # Ids differ between the two stores: a card is known by its content.
    exact = _recalls(tmp_path / "float32", "float32")
    half = _recalls(tmp_path / "bfloat16", "bfloat16")
    for question in QUESTIONS:
        wide = {card.content: card.score for card in exact[question]}
        narrow = {card.content: card.score for card in half[question]}
        shared = wide.keys() & narrow.keys()
        # Only a card at the cut-off, as close as bf16 allows to the one it traded places with,
        # may be in one list and not the other.
        floor = min(wide.values())
        for text in wide.keys() ^ narrow.keys():
            score = wide.get(text, narrow.get(text))
            assert score is not None and score <= floor + SCORE_TOLERANCE, (question, text[:40])
        for text in shared:
            assert abs(wide[text] - narrow[text]) <= SCORE_TOLERANCE, (question, text[:40])
        order = [text for text in wide if text in shared]
        reordered = sorted(order, key=lambda text: -narrow[text])
        for first, second in zip(order, reordered, strict=True):
            if first != second:  # a swap only between cards bf16 cannot tell apart
                assert abs(wide[first] - wide[second]) <= SCORE_TOLERANCE, question
        top, top_half = exact[question][0].content, half[question][0].content
        assert top == top_half or abs(wide[top] - wide.get(top_half, 0.0)) <= SCORE_TOLERANCE
