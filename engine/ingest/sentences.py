"""The sentences of an episode that get vectors of their own (the vector store's `sentences`
space), so that a sentence inside a long turn is found by what it says alone.

A turn's one vector averages what its sentences say: "I had a lil car accident last Friday"
inside a five-sentence greeting is far from "When did Calvin have a car incident?". Each
sentence keeps the speaker label the content starts with ("Calvin: "), which tells whose
sentence it is, as the turn's vector does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from engine.embed.multilingual import needs_multilingual

__all__ = ["as_embedded", "by_text", "mean_vector", "sentences_to_embed", "stored_by_sentence"]

_Row = TypeVar("_Row")

# Ends of English sentences need a space after them ("v2.1", "3.5 km" are not ends); Chinese
# ones do not.
_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
# "Calvin: ", "Dr. Lee: ", "Mary Ann Smith: " at the very start: up to three words before a colon.
_LABEL = re.compile(r"^(?:[^\s:：]{1,40} ){0,2}[^\s:：]{1,40}(?:: |：)")


def sentences_to_embed(content: str, max_sentences: int) -> list[str]:
    """The sentences of `content` to embed each on its own, each with the content's speaker
    label: none when it has one sentence (its own vector says it), more than `max_sentences`
    (a bound on one episode's vectors; long content's chunks have their own) or text the dense
    model cannot read.

    >>> sentences_to_embed("Calvin: Hi Dave! I had a car accident last Friday. Nobody was hurt.", 8)
    ['Calvin: Hi Dave!', 'Calvin: I had a car accident last Friday.', 'Calvin: Nobody was hurt.']
    >>> sentences_to_embed("Atlas v2.1 ships today", 8), sentences_to_embed("One. Two. Three.", 2)
    ([], [])
    >>> sentences_to_embed("我们周五发布。谢谢大家！", 8)
    []
    """
    if max_sentences < 2 or needs_multilingual(content):
        return []
    label, parts = _labelled(content)
    if not 2 <= len(parts) <= max_sentences:
        return []
    return [label + part for part in parts]


def stored_by_sentence(content: str, stored: Sequence[Sequence[float]]) -> dict[str, Sequence[float]]:
    """The vectors a point of `content` holds for its sentences, by their text with the
    label or without it (each was embedded with it): `stored` is its "sentences" multivector
    (its own vector, then its sentences'). One sentence is the content itself; several are
    read only when the point has a vector for each (content stored with sentence vectors off
    has its own vector alone).

    >>> stored_by_sentence("Calvin: Hi! Nobody was hurt.", [[1.0], [2.0], [3.0]])
    {'Hi!': [2.0], 'Nobody was hurt.': [3.0], 'Calvin: Hi!': [2.0]}
    >>> stored_by_sentence("Nobody was hurt.", [[1.0]]), stored_by_sentence("Hi! Bye.", [[1.0]])
    ({'Nobody was hurt.': [1.0]}, {})
    """
    label, parts = _labelled(content)
    if len(parts) == 1 and stored:
        found = {parts[0]: stored[0]}
    elif len(parts) >= 2 and len(stored) == 1 + len(parts):
        found = dict(zip(parts, stored[1:], strict=True))
    else:
        return {}
    if label:
        found[label + parts[0]] = found[parts[0]]
    return found


def as_embedded(content: str, sentence: str) -> str:
    """A sentence of `content` as ingest embeds it: with the speaker label the content
    starts with, unless it holds it already.

    >>> as_embedded("Calvin: Hi! Bye.", "Bye."), as_embedded("Calvin: Hi! Bye.", "Calvin: Hi!")
    ('Calvin: Bye.', 'Calvin: Hi!')
    """
    label = _labelled(content)[0]
    return sentence if sentence.startswith(label) else label + sentence


def _labelled(content: str) -> tuple[str, list[str]]:
    label_match = _LABEL.match(content)
    label = label_match.group(0) if label_match else ""
    body = content[len(label) :]
    return label, [part.strip() for part in _END.split(body) if part and part.strip()]


def mean_vector(vectors: Sequence[Sequence[float]]) -> list[float]:
    """The unit-length mean of unit vectors: a text's vector from its sentences' when it
    gets no pass of its own.

    >>> mean_vector([[1.0, 0.0], [0.0, 1.0]]) == [0.7071067690849304, 0.7071067690849304]
    True
    """
    mean = np.mean(np.asarray(vectors, dtype=np.float32), axis=0)
    return (mean / np.linalg.norm(mean)).tolist()  # type: ignore[no-any-return]


def by_text(rows: Sequence[_Row], counts: Sequence[int]) -> list[list[_Row]]:
    """The rows of one flat batch of sentences, back in groups: `counts[i]` for the i-th text.

    >>> by_text(["a1", "a2", "c1"], [2, 0, 1])
    [['a1', 'a2'], [], ['c1']]
    """
    groups, position = [], 0
    for count in counts:
        groups.append(list(rows[position : position + count]))
        position += count
    return groups
