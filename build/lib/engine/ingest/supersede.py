"""Which active decisions a new decision supersedes. Pure.

A later decision supersedes an earlier active one when they share a subject (an entity the
decision is about, or a quantity such as the budget) and their texts are similar enough:
"use Postgres for Atlas" then "use MySQL for Atlas" (cosine 0.74) supersede; "use Postgres for
Atlas" then "Atlas launches in May" (0.59) do not. The superseded decision is kept, marked
`superseded`, with a SUPERSEDES edge from the new one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

__all__ = ["DecisionView", "choose_supersessions"]


class DecisionView(BaseModel):
    """A decision as supersession sees it."""

    id: str
    subjects: list[str]
    at: float
    vector: list[float]


def choose_supersessions(
    new: Sequence[DecisionView], active: Sequence[DecisionView], *, threshold: float
) -> list[tuple[str, str]]:
    """(new id, superseded id) pairs. New decisions are taken in time order, and each becomes
    active for the ones after it.

    >>> old = DecisionView(id="d1", subjects=["topic:budget"], at=1.0, vector=[1.0, 0.0])
    >>> later = DecisionView(id="d2", subjects=["topic:budget"], at=2.0, vector=[0.8, 0.6])
    >>> other = DecisionView(id="d3", subjects=["topic:price"], at=3.0, vector=[1.0, 0.0])
    >>> choose_supersessions([later, other], [old], threshold=0.7)
    [('d2', 'd1')]
    """
    pool = list(active)
    pairs: list[tuple[str, str]] = []
    for decision in sorted(new, key=lambda d: d.at):
        mine = np.asarray(decision.vector, dtype=np.float32)
        subjects = set(decision.subjects)
        replaced = [
            old
            for old in pool
            if old.at <= decision.at
            and subjects & set(old.subjects)
            and float(np.dot(mine, np.asarray(old.vector, dtype=np.float32))) >= threshold
        ]
        pairs.extend((decision.id, old.id) for old in replaced)
        pool = [old for old in pool if old not in replaced] + [decision]
    return pairs
