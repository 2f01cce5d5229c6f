"""Why recall missed an evidence turn, in classes a fix can aim at (`bench.locomo --misses`).

- outranked: the turn shares a content word with the question, yet others ranked above it;
- category: it shares words with the answer only: the question names a category ("what
  activities", "what kind of art") and the turn an instance ("pottery", "abstract");
- no shared word: neither the question's words nor the answer's (an inference such as
  "single parent" for "relationship status", or a label that points at the wrong turn);
- unknown turn: the evidence id names no turn of the conversation.
"""

from __future__ import annotations

from collections import Counter

from engine.text import tokenize

__all__ = ["CLASSES", "miss_class", "shares"]

CLASSES = ("outranked", "category", "no shared word", "unknown turn")


def _content(text: str, names: frozenset[str]) -> set[str]:
    return {token for token in tokenize(text) if len(token) > 2 and token not in names}


def miss_class(question: str, answer: str, turn: str | None, names: frozenset[str]) -> str:
    """The class of one missed evidence turn; `names` (tokenized) are the speakers', which every
    turn of theirs carries and so tell nothing.

    >>> people = frozenset({"melani"})
    >>> miss_class("What activities does Melanie do?", "pottery", "Melanie: I signed up for pottery", people)
    'category'
    >>> miss_class("What has Melanie painted?", "a horse", "Melanie: my horse painting", people)
    'outranked'
    """
    if turn is None:
        return "unknown turn"
    words = _content(turn, names)
    if words & _content(question, names):
        return "outranked"
    if words & _content(answer, names):
        return "category"
    return "no shared word"


def shares(counts: Counter[str]) -> dict[str, float]:
    """Each class's share of the misses, in percent."""
    total = sum(counts.values())
    return {name: round(100 * counts[name] / total, 1) if total else 0.0 for name in CLASSES}
