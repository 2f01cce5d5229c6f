"""The relative times a memory's words name, in calendar words an agent can read: "yesterday"
said on 21 June 2023 is "20 June 2023", "last week" is "the week before 21 June 2023". A card
carries them (`MemoryCard.times`) so that a reader of an old memory need not count back
from the day it was said. Pure."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.models import NamedTime
from engine.time_phrases import NamedSpan, named_spans

__all__ = ["calendar_text", "named_times"]

DAY = 86_400.0
_THIRDS = {1: "early", 11: "mid", 21: "late"}
_ZH_THIRDS = {1: "初", 11: "中", 21: "底"}
_AROUND = {"last week": "the week before", "last weekend": "the weekend before",
           "next week": "the week after", "next weekend": "the weekend after"}  # fmt: skip


def named_times(text: str, said_at: float, *, limit: int = 3) -> list[NamedTime]:
    """The first `limit` relative times `text` names, said at `said_at` (epoch seconds).

    >>> at = datetime(2023, 6, 21, 15, tzinfo=UTC).timestamp()
    >>> [(t.phrase, t.text) for t in named_times("Yesterday I went; last week too. Next month, Tokyo!", at)]
    [('Yesterday', '20 June 2023'), ('last week', 'the week before 21 June 2023'), ('Next month', 'July 2023')]
    >>> named_times("I love painting", at)
    []
    """
    said = datetime.fromtimestamp(said_at, UTC)
    return [
        NamedTime(phrase=span.phrase, start=_utc(span.start), end=_utc(span.end), text=calendar_text(span, said))
        for span in named_spans(text, said_at)[:limit]
    ]


def calendar_text(span: NamedSpan, said: datetime) -> str:
    """A span in calendar words, in the language of its phrase.

    >>> said = datetime(2023, 5, 8, 12, tzinfo=UTC)
    >>> def text(phrase, start, days):
    ...     s = datetime(*start, tzinfo=UTC).timestamp()
    ...     return calendar_text(NamedSpan(phrase, 0, s, s + days * DAY), said)
    >>> text("yesterday", (2023, 5, 7), 1), text("two weeks ago", (2023, 4, 24), 7)
    ('7 May 2023', 'the week of 24 April 2023')
    >>> text("last month", (2023, 4, 1), 30), text("上个月初", (2023, 4, 1), 10), text("last year", (2022, 1, 1), 365)
    ('April 2023', '2023年4月初', '2022')
    >>> text("昨天", (2023, 5, 7), 1), text("上周", (2023, 5, 1), 7), text("last weekend", (2023, 5, 1), 7)
    ('2023年5月7日', '2023年5月1日起的一周', 'the weekend before 8 May 2023')
    """
    start = datetime.fromtimestamp(span.start, UTC)
    days = round((span.end - span.start) / DAY)
    chinese = not span.phrase.isascii()
    if span.phrase.lower() in _AROUND:
        return f"{_AROUND[span.phrase.lower()]} {_day(said)}"
    if days <= 1:
        return f"{start.year}年{start.month}月{start.day}日" if chinese else _day(start)
    if days <= 7:
        return f"{start.year}年{start.month}月{start.day}日起的一周" if chinese else f"the week of {_day(start)}"
    if days <= 11 and start.day in _THIRDS:
        return f"{start.year}年{start.month}月{_ZH_THIRDS[start.day]}" if chinese else f"{_THIRDS[start.day]} {start:%B %Y}"
    if days <= 31:
        return f"{start.year}年{start.month}月" if chinese else f"{start:%B %Y}"
    return f"{start.year}年" if chinese else str(start.year)


def _day(moment: datetime) -> str:
    return f"{moment.day} {moment:%B %Y}"


def _utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)
