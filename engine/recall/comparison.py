"""The two sides of a question that compares events in time (`sides`, pure), and the `side`
channel that searches each: "Which came first, Maya buying the road bike or adopting
Pebble?", "How long after her first pottery class did Maya glaze a bowl?", "How many months
passed between Andrew adopting Toby and Buddy?", "小林先买了电动车还是先领养了团子？",
"小林报名书法班之后多久装裱了福字？".

The answer needs a memory of each event, and the whole question's words rank one side's
memories above the other's: each side is searched on its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from engine.recall.channels import keyword_channel, vector_channel
from engine.recall.fusion import Scored
from engine.stores.vectors import DenseSpace, VectorStore
from engine.text import tokenize

__all__ = ["side_channel", "sides"]

_EN = [
    re.compile(r"\bwhich (?:\w+ ){0,4}?first\s*[,:\-–]?\s*(?P<a>.+?),? or (?P<b>.+?)\s*\??$", re.I),
    re.compile(r"^(?:did|was|were) (?P<a>.+?) (?:before|after) (?P<b>.+?)(?:,? or (?:after|before))?\s*\??$", re.I),
    re.compile(r"\bhow long (?:after|before) (?P<a>.+?) did (?P<b>.+?)\s*\??$", re.I),
    re.compile(r"\bhow long did (?P<a>.+?) (?:before|until|after) (?P<b>.+?)\s*\??$", re.I),
]
# "How many months passed between Andrew adopting Toby and Buddy": the short side shares the
# other's words. Only a question of how long: "the talk between John and Tim" compares nothing.
_BETWEEN = re.compile(
    r"\b(?:how (?:long|many|much)|passed|lapsed|elapsed)\b.*?\bbetween (?P<a>.+?) and (?P<b>.+?)\s*\??$", re.I
)
_ZH = [
    re.compile(r"^(?P<who>[^先]*?)先(?P<a>.+?)还是先?(?P<b>.+?)[？?]?$"),
    re.compile(r"^(?P<a>.+?)(?:之后|以后|后)(?:过了)?多久(?:才)?(?P<b>.+?)[？?]?$"),
    re.compile(r"^(?P<a>.+?)(?:之前|以前|前)(?P<b>.+?)了多久[？?]?$"),
    re.compile(r"^(?:从)?(?P<a>.+?)(?:到|和|与)(?P<b>.+?)之间(?:隔|过|相隔)了多久[？?]?$"),
]
# A side of a date range ("between May 2 and May 4") is a date, not an event.
_DATE_LIKE = re.compile(r"^\s*(?:\d|the \d|\w+ \d{1,2}\b|(?:19|20)\d\d)", re.I)
_SHORT = 2  # words: a side this short leans on the other's words ("Toby and Buddy")


def sides(query: str) -> tuple[str, str] | None:
    """The two events a question compares in time, each as a query of its own, else None.

    >>> sides("Which came first, Maya buying the road bike or adopting Pebble?")
    ('Maya buying the road bike', 'adopting Pebble')
    >>> sides("How long after her first pottery class did Maya glaze a bowl?")
    ('her first pottery class', 'Maya glaze a bowl')
    >>> sides("How many months passed between Andrew adopting Toby and Buddy?")
    ('Andrew adopting Toby', 'Andrew adopting Buddy')
    >>> sides("How many months lapsed between Sam's first and second doctor's appointment?")
    ("Sam's first doctor's appointment", "second doctor's appointment")
    >>> sides("小林先买了电动车还是先领养了团子？"), sides("小林报名书法班之后多久装裱了福字？")
    (('小林买了电动车', '小林领养了团子'), ('小林报名书法班', '装裱了福字'))
    >>> sides("Where was John between August 11 and August 15 2023?") is None
    True
    >>> sides("What did Maya buy on April 27?"), sides("What did Melanie realize after the charity race?")
    (None, None)
    >>> sides("What is the topic of discussion between John and Tim on 11 December, 2023?") is None
    True
    """
    text = query.strip()
    for pattern in _ZH:
        if match := pattern.search(text):
            who = match.groupdict().get("who") or ""
            return who + match["a"].strip(), who + match["b"].strip()
    for pattern in [*_EN, _BETWEEN]:
        if match := pattern.search(text):
            a, b = match["a"].strip(" ,"), match["b"].strip(" ,")
            if _DATE_LIKE.match(a) or _DATE_LIKE.match(b) or not a or not b:
                return None
            return _borrowed(a, b) if pattern is _BETWEEN else (a, b)
    return None


def _borrowed(a: str, b: str) -> tuple[str, str]:
    """Complete a short side from the other: "Andrew adopting Toby" and "Buddy" become
    "Andrew adopting Buddy"; "Sam's first" and "second doctor's appointment" become
    "Sam's first doctor's appointment"."""
    first, second = a.split(), b.split()
    if len(second) <= _SHORT < len(first):
        return a, " ".join(first[: -len(second)] + second)
    if len(first) <= _SHORT < len(second):
        return " ".join(first + second[len(first) - 1 :]), b
    return a, b


def side_channel(
    vectors: VectorStore,
    namespace: str,
    compared: Sequence[tuple[str, list[float]]],
    *,
    space: DenseSpace,
    limit: int,
    fuse: Callable[[Mapping[str, list[Scored]]], Mapping[str, float]],
) -> list[Scored]:
    """Each side's `limit` best memories by its own words and vector (`compared`: each side's
    text and its vector in `space`), fused by `fuse` and scored against that side's best, so
    that the best memory of each event scores 1; the higher score where both find one."""
    best: dict[str, float] = {}
    for text, vector in compared:
        found = fuse({
            "keyword": keyword_channel(vectors, namespace, tokenize(text), limit),
            "vector": vector_channel(vectors, namespace, vector, limit, space),
        })  # fmt: skip
        top = max(found.values(), default=0.0)
        for hit, score in found.items():
            if top > 0 and score / top > best.get(hit, 0.0):
                best[hit] = score / top
    return [Scored(id=i, score=s) for i, s in best.items()]
