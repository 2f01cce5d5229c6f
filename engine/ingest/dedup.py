"""When is a new episode a duplicate of a stored one? Pure.

Exact duplicates share a content hash (after NFKC and case folding). Near duplicates need an
embedding cosine at or above the threshold *and* the same facts: the same index terms in the
same order, the same numbers, the same negation. MiniLM scores "slipped by 5 days" and "slipped by 9 days" at
0.96, and "moved to Friday" / "moved to Thursday" at 0.94; merging those would lose the very
detail a memory is for, so the guard errs towards keeping both.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel

from engine.models import Episode
from engine.stores.vectors import VectorHit
from engine.text import has_negation, normalize, tokenize

__all__ = ["Duplicate", "content_hash", "duplicates_in_batch", "near_duplicate", "same_facts"]

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def content_hash(text: str) -> str:
    """sha256 of the normalised text, whitespace collapsed.

    >>> content_hash("We  chose Postgres") == content_hash("we chose POSTGRES")
    True
    """
    return hashlib.sha256(" ".join(normalize(text).split()).encode()).hexdigest()


def same_facts(a: str, b: str) -> bool:
    """Whether two texts state the same thing in (nearly) the same words.

    >>> same_facts("Please remind me to send the report", "Remind me to send the report!")
    True
    >>> same_facts("The launch slipped by 5 days", "The launch slipped by 9 days")
    False
    >>> same_facts("We will use Redis", "We will not use Redis")
    False
    >>> same_facts("The meeting moved to Friday", "The meeting moved to Thursday")
    False
    """
    if has_negation(a) != has_negation(b):
        return False
    if _NUMBER.findall(a) != _NUMBER.findall(b):
        return False
    # In order: "Alice told Bob" and "Bob told Alice" are not the same fact.
    return tokenize(a) == tokenize(b)


class Duplicate(BaseModel):
    """The episode a new text repeats."""

    of: str
    exact: bool = False


def near_duplicate(
    content: str, top: Sequence[VectorHit], stored: Mapping[str, Episode], threshold: float
) -> Duplicate | None:
    """The stored episode `content` nearly repeats: the top vector hit, when it scores at or
    above the threshold and states the same facts."""
    if not top or top[0].score < threshold:
        return None
    episode = stored.get(top[0].id)
    if episode is None or not same_facts(content, episode.content):
        return None
    return Duplicate(of=episode.id)


def duplicates_in_batch(
    items: Sequence[tuple[str, str, Sequence[float]]], threshold: float
) -> dict[str, Duplicate]:
    """Within one batch, (id, content, embedding) items that repeat an earlier item.

    >>> v = [1.0, 0.0]
    >>> duplicates_in_batch([("a", "Ship it today", v), ("b", "ship it today!", v),
    ...                      ("c", "Ship it tomorrow", v)], 0.92)
    {'b': Duplicate(of='a', exact=False)}
    """
    found: dict[str, Duplicate] = {}
    if len(items) < 2:
        return found
    matrix = np.asarray([vector for _, _, vector in items], dtype=np.float32)
    similarity = matrix @ matrix.T
    hashes = [content_hash(content) for _, content, _ in items]
    for j in range(1, len(items)):
        for i in range(j):
            if items[i][0] in found:
                continue  # point at the first of a run, not at another duplicate
            same_hash = hashes[i] == hashes[j]
            if same_hash or (
                similarity[i, j] >= threshold and same_facts(items[i][1], items[j][1])
            ):
                found[items[j][0]] = Duplicate(of=items[i][0], exact=same_hash)
                break
    return found
