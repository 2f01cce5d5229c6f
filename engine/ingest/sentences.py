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

from engine.embed.multilingual import needs_multilingual

__all__ = ["by_text", "sentences_to_embed"]

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
    label_match = _LABEL.match(content)
    label = label_match.group(0) if label_match else ""
    body = content[len(label) :]
    parts = [part.strip() for part in _END.split(body) if part and part.strip()]
    if not 2 <= len(parts) <= max_sentences:
        return []
    return [label + part for part in parts]


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
