"""Query analysis, pure: index terms, candidate entity names and time intent."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel

from engine.nlp import RawEntity
from engine.text import canonical_name, has_cjk, normalize, tokenize

__all__ = ["QueryTerms", "analyze", "entity_candidates", "has_time_intent"]

_MAX_NGRAM = 3
_TIME_INTENT = re.compile(
    r"\b(last time|latest|recent(ly)?|yesterday|today|earlier|before|previous(ly)?|"
    r"just now|this (morning|week|month)|last (week|month|night|session))\b"
    r"|上次|之前|刚才|昨天|今天|最近|前几天|上周|上个月",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[^\W_]+(?:[.\-][^\W_]+)*")


class QueryTerms(BaseModel):
    """What recall needs from the query text, before any store is asked."""

    tokens: list[str]
    entity_names: list[str]  # canonical names to look up among the namespace's entities
    time_intent: bool


def has_time_intent(query: str) -> bool:
    """True when the query asks about when or about the latest state of things.

    >>> has_time_intent("What did we decide last time?"), has_time_intent("上次的预算是多少")
    (True, True)
    """
    return _TIME_INTENT.search(query) is not None


def entity_candidates(query: str, found: Sequence[RawEntity]) -> list[str]:
    """Canonical names that may denote known entities: NER hits, word n-grams, Chinese words.

    Matching n-grams against the namespace's entities catches lower-case mentions
    ("atlas") that NER misses in a short query.

    >>> entity_candidates("Project Atlas 的预算", [])
    ['project', 'atlas', '的预算', 'project atlas', 'atlas 的预算', 'project atlas 的预算', '预算']
    """
    names: list[str] = [canonical_name(e.name) for e in found]
    words = _WORDS.findall(normalize(query))
    for size in range(1, _MAX_NGRAM + 1):
        for start in range(len(words) - size + 1):
            names.append(canonical_name(" ".join(words[start : start + size])))
    names.extend(t for t in tokenize(query) if has_cjk(t) and len(t) > 1)
    unique: dict[str, None] = {}
    for name in names:
        if name:
            unique.setdefault(name, None)
    return list(unique)


def analyze(query: str, found: Sequence[RawEntity]) -> QueryTerms:
    return QueryTerms(
        tokens=tokenize(query),
        entity_names=entity_candidates(query, found),
        time_intent=has_time_intent(query),
    )
