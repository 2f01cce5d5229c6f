"""Query analysis, pure: index terms and candidate entity names (time: `time_query`).

Entity names are matched as a gazetteer: every word n-gram of the query, and every short
piece of a Chinese run, is looked up among the namespace's entity names and aliases, so no NER
model runs at recall time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel

from engine.nlp import RawEntity
from engine.text import canonical_name, has_cjk, normalize, tokenize

__all__ = ["QueryTerms", "analyze", "entity_candidates"]

_MAX_NGRAM = 3
# Chinese runs without spaces, and the segmenter cuts a short name into its neighbours
# ("小李住在哪里" into 小李住 / 在 / 哪里): every 2-4 character piece of a run is a candidate.
_HAN_NAME = range(2, 5)
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A run of Han characters is a word apart from the Latin beside it: "Sam在哪里工作" names Sam.
_WORDS = re.compile(rf"[^\W_{_HAN}]+(?:[.\-][^\W_{_HAN}]+)*|[{_HAN}]+")


class QueryTerms(BaseModel):
    """What recall needs from the query text, before any store is asked."""

    tokens: list[str]
    entity_names: list[str]  # canonical names to look up among the namespace's entities


def entity_candidates(query: str, found: Sequence[RawEntity]) -> list[str]:
    """Canonical names that may denote known entities: NER hits, word n-grams, Chinese words.

    Matching n-grams against the namespace's entities catches lower-case mentions
    ("atlas") that NER misses in a short query.

    >>> entity_candidates("Project Atlas 的预算", [])
    ['project', 'atlas', '的预算', 'project atlas', 'atlas 的预算', 'project atlas 的预算', '预算', '的预']
    >>> entity_candidates("Sam在哪里工作？", [])[:2]
    ['sam', '在哪里工作']
    >>> "小李" in entity_candidates("小李住在哪里？", [])
    True
    """
    names: list[str] = [canonical_name(e.name) for e in found]
    words = _WORDS.findall(normalize(query))
    for size in range(1, _MAX_NGRAM + 1):
        for start in range(len(words) - size + 1):
            names.append(canonical_name(" ".join(words[start : start + size])))
    names.extend(t for t in tokenize(query) if has_cjk(t) and len(t) > 1)
    for run in re.findall(f"[{_HAN}]+", normalize(query)):
        names.extend(run[start : start + size] for size in _HAN_NAME for start in range(len(run) - size + 1))
    unique: dict[str, None] = {}
    for name in names:
        if name:
            unique.setdefault(name, None)
    return list(unique)


def analyze(query: str, found: Sequence[RawEntity] = ()) -> QueryTerms:
    return QueryTerms(tokens=tokenize(query), entity_names=entity_candidates(query, found))
