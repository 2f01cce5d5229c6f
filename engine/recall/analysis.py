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
from engine.recall.work_query import asks_fix, asks_lesson, names_subject
from engine.signatures import query_keys

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
    r"|\bour (?:last|previous) session\b|之前那次|最近一次(?:聊|谈|对话)",
    re.IGNORECASE,
)
# "Last time" alone: the latest session, unless the question names what it was the last time
# of ("how did we fix the 429 last time?"), or asks for a fix.
_LAST_TIME = re.compile(
    r"\b(?:the )?(?:last|previous) (?:time|session)\b|上次|上一次|前一次",
    re.IGNORECASE,
)


def session_reference(query: str) -> SessionReference | None:
    """The session a question names by its order ("first", or "last": the latest one); a
    bare "last time" names the latest session only when the question names nothing else
    (`engine.recall.work_query.names_subject`) and asks for no fix.

    >>> session_reference("Remind me what we covered in our first conversation")
    'first'
    >>> session_reference("What did we talk about the last time we spoke?"), session_reference("上次我们聊了什么？")
    ('last', 'last')
    >>> session_reference("What did we talk about last time?"), session_reference("Was it cold last time?")
    ('last', None)
    >>> session_reference("Did I go hiking last time I was in Oslo?"), session_reference("上次怎么解决的？")
    (None, None)
    >>> session_reference("What did Dana say about the first release?") is None
    True
    """
    if _FIRST.search(query):
        return "first"
    if _LAST.search(query):
        return "last"
    if _LAST_TIME.search(query) and not names_subject(query) and not asks_fix(query):
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
    asks_fix: bool = False  # "how did we get past X?", "上次怎么解决的": a fix, not the failure
    asks_lesson: bool = False  # "what have we learned about X?": a lesson
    signature_keys: tuple[str, ...] = ()  # the error signatures a pasted error may name

    @property
    def about_work(self) -> bool:
        """Whether it asks after a fix or a lesson, or pastes an error: the fix channel runs."""
        return self.asks_fix or self.asks_lesson or bool(self.signature_keys)


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
        asks_fix=asks_fix(query),
        asks_lesson=asks_lesson(query),
        signature_keys=tuple(query_keys(query)),
    )
