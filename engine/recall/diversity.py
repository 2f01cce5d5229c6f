"""Cards that say new things, pure: maximal marginal relevance trades a little score for
memories unlike those chosen; `without_repeats` drops a card that only repeats words already
shown.

Greedy: the next card is the candidate maximising

    lambda x score / best_score - (1 - lambda) x max cosine(candidate, cards chosen so far)

lambda = 1 is plain score order. A candidate without a vector counts as dissimilar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from engine.models import MemoryCard

__all__ = ["mmr_order", "without_repeats"]


def mmr_order(
    scored: Sequence[tuple[str, float]],
    vectors: Mapping[str, Sequence[float]],
    *,
    lam: float,
    count: int,
) -> list[str]:
    """The ids of the `count` first picks of MMR, in pick order.

    >>> vectors = {"a": [1.0, 0.0], "a2": [1.0, 0.0], "b": [0.0, 1.0]}
    >>> mmr_order([("a", 1.0), ("a2", 0.99), ("b", 0.8)], vectors, lam=0.5, count=2)
    ['a', 'b']
    >>> mmr_order([("a", 1.0), ("a2", 0.99), ("b", 0.8)], vectors, lam=1.0, count=2)
    ['a', 'a2']
    """
    if not scored:
        return []
    best = max(score for _, score in scored) or 1.0
    ids = [i for i, _ in scored]
    relevance = np.array([score / best for _, score in scored])
    dimension = len(next(iter(vectors.values()), []))
    matrix = np.array(
        [vectors.get(i) if i in vectors else np.zeros(dimension) for i in ids], dtype=np.float64
    ) if dimension else np.zeros((len(ids), 1))  # fmt: skip
    norms = np.linalg.norm(matrix, axis=1)
    matrix = matrix / np.where(norms > 0, norms, 1.0)[:, None]
    similarity = np.zeros(len(ids))  # max cosine to anything picked so far
    remaining = list(range(len(ids)))
    picked: list[int] = []
    while remaining and len(picked) < count:
        values = lam * relevance[remaining] - (1 - lam) * similarity[remaining]
        choice = remaining[int(np.argmax(values))]
        picked.append(choice)
        remaining.remove(choice)
        similarity = np.maximum(similarity, matrix @ matrix[choice])
    return [ids[i] for i in picked]


def without_repeats(ordered: Sequence[MemoryCard], top_k: int) -> list[MemoryCard]:
    """The first `top_k` cards, best first, leaving out a card that repeats one above it: a
    fact card drawn from one episode shown above (a fact several episodes support says what
    none of them says alone), or whose statement and sources a better fact card shows ("buys
    groceries" and "cooks food" from one sentence); an episode card whose whole content a
    fact card above states.

    >>> def card(id, layer="episodic", sources=(), statement="", content=""):
    ...     from datetime import datetime, UTC
    ...     at = datetime(2023, 5, 8, tzinfo=UTC)
    ...     return MemoryCard(id=id, namespace="n", content=content or id, score=1.0, occurred_at=at,
    ...                       created_at=at, session_id=None, role=None, kind="message", layer=layer,
    ...                       importance=0.5, entities=[], related_ids=list(sources),
    ...                       metadata={"statement": statement})
    >>> cards = [card("e1"), card("e2"), card("f1", "semantic", ["e1"], "s1"), card("f2", "semantic", ["e9"], "s2"),
    ...          card("f3", "semantic", ["e9"], "s2"), card("e9", content="s2"), card("f4", "semantic", ["e1", "e2"]),
    ...          card("e3")]
    >>> [c.id for c in without_repeats(cards, 4)]
    ['e1', 'e2', 'f2', 'f4']
    """
    kept: list[MemoryCard] = []
    shown: set[str] = set()  # episodes shown
    said: set[tuple[str, tuple[str, ...]]] = set()  # facts shown: statement and sources
    for card in ordered:
        if len(kept) == top_k:
            break
        if card.layer == "semantic":
            key = (str(card.metadata.get("statement", "")).strip(), tuple(sorted(card.related_ids)))
            if card.related_ids and ((len(card.related_ids) == 1 and card.related_ids[0] in shown) or key in said):
                continue
            said.add(key)
        elif any(card.content.strip() == statement for statement, _ in said):
            continue
        else:
            shown.add(card.id)
        kept.append(card)
    return kept
