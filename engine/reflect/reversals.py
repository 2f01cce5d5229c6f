"""A speaker's reversal of a taste read from its wording: "I no longer like running", "I don't
like cold brew anymore". spaCy's small model misparses just these sentences ("like" read as a
preposition after "no longer", "brew" as a verb), and a reversal read wrongly leaves the old
taste active, so the wording is read directly. Pure over a parsed sentence.
"""

from __future__ import annotations

import re
from typing import Any

from engine.reflect.vocabulary import Statement

__all__ = ["reversal", "reversals"]

_VERBS = {"like": "likes", "love": "likes", "enjoy": "likes"}
# "I no longer like X", "I don't like X anymore": what ends a taste, not a plain dislike,
# which the parse reads well enough.
_REVERSAL = re.compile(
    r"\bI\s+(?:(?P<longer>no\s+longer)|(?:don't|don’t|do\s+not))\s+(?:really\s+)?"
    r"(?P<verb>like|love|enjoy)\s+(?P<object>[a-z][\w' -]*?)"
    r"(?P<anymore>\s+any\s?more)?\s*(?:[,.;!]|$)",
    re.IGNORECASE,
)
_NOT_OBJECTS = frozenset({"it", "that", "this", "them", "to", "the", "a", "an", "my", "how"})
_MOST_WORDS = 4


def reversal(text: str) -> tuple[str, str, int] | None:
    """(predicate, object as written, where the object starts) of the taste a sentence says
    has ended.

    >>> reversal("I no longer like running.")
    ('likes', 'running', 17)
    >>> reversal("Actually I don't like cold brew anymore, it is too bitter.")
    ('likes', 'cold brew', 22)
    >>> reversal("I don't like cold brew.") is None  # a dislike, not a change
    True
    >>> reversal("I don't like it anymore.") is None  # what "it" is the sentence does not say
    True
    """
    found = _REVERSAL.search(text)
    if found is None or not (found["longer"] or found["anymore"]):
        return None
    words = found["object"].split()
    if not words or len(words) > _MOST_WORDS or words[0].lower() in _NOT_OBJECTS:
        return None
    return _VERBS[found["verb"].lower()], " ".join(words), found.start("object")


def reversals(sentence: Any, found: list[Statement]) -> list[Statement]:
    """The reversal the wording states, unless the parse already read it as a negated taste."""
    read = reversal(sentence.text)
    if read is None or any(s.negated and s.predicate == read[0] for s in found):
        return []
    predicate, text, start = read
    tokens = [t for t in sentence if t.idx >= sentence.start_char + start][: len(text.split())]
    key = " ".join(t.lower_ if t.text[:1].isupper() else t.lemma_.lower() for t in tokens)
    return [Statement(subject_kind="speaker", subject="I", predicate=predicate, object=text, object_key=key,
                      negated=True, sentence=sentence.text.strip())]  # fmt: skip
