"""Maximal marginal relevance, pure: trade a little score for memories that say new things.

Greedy: the next card is the candidate maximising

    lambda x score / best_score - (1 - lambda) x max cosine(candidate, cards chosen so far)

lambda = 1 is plain score order. A candidate without a vector counts as dissimilar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["mmr_order"]


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
