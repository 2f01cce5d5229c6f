"""Entity resolution: which stored entity a newly mentioned name refers to. Pure.

Names are matched first by canonical name and aliases (in the graph), then, for a name not
known yet, by embedding similarity to lexically close entities of the same type. A guard keeps
apart names that look alike but differ in a number or a distinguishing word ("Room 101" and
"Room 102" score 0.91; "Project Alpha" and "Project Beta" differ in a key token).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from engine.models import Entity

__all__ = ["Candidate", "candidate_prefix", "names_conflict", "resolve_name"]

_DIGITS = re.compile(r"\d+")
# Lexical candidates share this many leading characters of the canonical name.
_PREFIX_CHARS = 3


class Candidate(BaseModel):
    """A stored entity and the embedding of its name."""

    entity: Entity
    vector: list[float]


def candidate_prefix(canonical: str) -> str:
    """The leading characters an entity must share to be compared at all.

    >>> candidate_prefix("postgresql"), candidate_prefix("北京大学")
    ('pos', '北京大')
    """
    return canonical[:_PREFIX_CHARS]


def names_conflict(a: str, b: str) -> bool:
    """True when two canonical names must not be merged, however similar they look.

    They conflict when their numbers differ, or when each has a word the other lacks.

    >>> names_conflict("room 101", "room 102"), names_conflict("project alpha", "project beta")
    (True, True)
    >>> names_conflict("postgres", "postgresql"), names_conflict("new york", "new york city")
    (False, False)
    """
    if _DIGITS.findall(a) != _DIGITS.findall(b):
        return True
    words_a, words_b = set(a.split()), set(b.split())
    if len(words_a) == 1 and len(words_b) == 1:
        return False  # spelling variants of one word: similarity decides
    return not (words_a <= words_b or words_b <= words_a)


def resolve_name(
    canonical: str,
    entity_type: str,
    vector: Sequence[float],
    candidates: Sequence[Candidate],
    *,
    threshold: float,
) -> Entity | None:
    """The one stored entity this new name means, or None.

    Only candidates of the same type, without a conflicting name, at cosine >= threshold
    count; when two or more qualify the name is ambiguous and stays a new entity.
    """
    query = np.asarray(vector, dtype=np.float32)
    matches = [
        c.entity
        for c in candidates
        if c.entity.type == entity_type
        and not names_conflict(canonical, c.entity.canonical)
        and float(np.dot(query, np.asarray(c.vector, dtype=np.float32))) >= threshold
    ]
    return matches[0] if len(matches) == 1 else None
