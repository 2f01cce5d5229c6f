"""Query analysis in one place: a pure function from the question (and when it is asked) to
everything recall reads off it before any store is asked, in English and Chinese.

`QueryAnalysis` gathers what the pieces recognise: the words and entity names
(`engine.recall.query`), the time asked about (`engine.recall.time_query`), whether the
question gathers across sessions (`engine.recall.sessions`), the two events a comparison
names (`engine.recall.comparison`), and which session it refers to ("our first
conversation", "last time we talked", "上次", "第一次聊").
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from engine.recall.asked import asked_predicates
from engine.recall.comparison import sides
from engine.recall.query import analyze
from engine.recall.sessions import gathers
from engine.recall.time_query import TimeQuery, time_query

__all__ = ["QueryAnalysis", "SessionReference", "analyse", "session_reference"]

SessionReference = Literal["first", "last"]

_TALK = r"(?:conversation|chat|session|talk|call|meeting|discussion)"
_TALKED = r"(?:talked|spoke|chatted|met|discussed|had a (?:chat|call|talk))"
_WE = r"(?:we|you and i|you and me)"
# A session named by its place in time, whatever the question then asks of it.
_FIRST = re.compile(
    rf"\b(?:our|the|my) (?:very )?first {_TALK}\b|\bthe (?:very )?first time {_WE} {_TALKED}\b"
    r"|第一次(?:聊|谈|对话|说|见面|沟通)|最早(?:那|一)次|头一次(?:聊|谈)",
    re.IGNORECASE,
)
_LAST = re.compile(
    rf"\b(?:our|the|my) (?:last|previous|latest|most recent) {_TALK}\b"
    rf"|\b(?:the )?last time {_WE} {_TALKED}\b|\bprevious(?:ly)?,? {_WE} {_TALKED}\b"
    rf"|\b(?:our |the )?(?:last|previous) (?:time|session)\s*[?.!]?\s*$"
    r"|上次|上一次|前一次|之前那次|最近一次(?:聊|谈|对话)",
    re.IGNORECASE,
)


def session_reference(query: str) -> SessionReference | None:
    """The session a question names by its order ("first", or "last": the latest one).

    >>> session_reference("Remind me what we covered in our first conversation")
    'first'
    >>> session_reference("What did we talk about the last time we spoke?"), session_reference("上次我们聊了什么？")
    ('last', 'last')
    >>> session_reference("What did we talk about last time?"), session_reference("Was it cold last time?")
    ('last', 'last')
    >>> session_reference("Did I go hiking last time I was in Oslo?") is None
    True
    >>> session_reference("What did Dana say about the first release?") is None
    True
    """
    if _FIRST.search(query):
        return "first"
    if _LAST.search(query):
        return "last"
    return None


class QueryAnalysis(BaseModel):
    """What a question asks, as recall reads it."""

    model_config = ConfigDict(frozen=True)

    tokens: list[str]
    entity_names: list[str]  # canonical names to look up among the namespace's entities
    time: TimeQuery  # the window it names, and whether it asks when / the latest / everything then
    gathers: bool  # "how many times", "一共": evidence from many sessions, not one fact
    sides: tuple[str, str] | None  # the two events of "which came first, X or Y?"
    session: SessionReference | None  # "our first conversation", "上次"
    asks: frozenset[str]  # the one-valued predicates it asks of whom it names ("where does X work")


def analyse(query: str, now: float) -> QueryAnalysis:
    """Everything recall reads off `query`, asked at `now` (epoch seconds).

    >>> from datetime import UTC, datetime
    >>> found = analyse("What topics did we discuss on May 2?", datetime(2024, 5, 10, tzinfo=UTC).timestamp())
    >>> found.time.broad, found.time.window is not None, found.gathers, found.session
    (True, True, False, None)
    """
    terms = analyze(query)
    return QueryAnalysis(
        tokens=terms.tokens,
        entity_names=terms.entity_names,
        time=time_query(query, now),
        gathers=gathers(query),
        sides=sides(query),
        session=session_reference(query),
        asks=asked_predicates(query),
    )
