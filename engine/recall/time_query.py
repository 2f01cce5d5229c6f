"""Time in a query, pure: does it ask *when*, want the latest, or name a date?

A "when" question is answered by a memory that carries a time ("last Friday", "in 2019",
"三年前"); a named date ("on 4 December 2023", "in May", "2023年5月") sets a window on the
episode times, not on the ingestion clock. Dates without a year mean the latest such date
not after `now`.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel

from engine.recall.fusion import SECONDS_PER_DAY
from engine.recall.month_parts import month_part
from engine.time_phrases import NUMBERS as _NUMBERS
from engine.time_phrases import relative_span

__all__ = ["TimeQuery", "date_window", "has_time_expression", "searched_window", "time_query"]

_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_MONTH = rf"(?P<month>{_MONTH_NAMES})\.?"

_ASKS_WHEN = re.compile(
    r"\bwhen\b|\bwhat (?:date|day|year|month|time)\b|\bwhich (?:date|day|year|month)\b"
    r"|\bhow long ago\b|\bsince when\b|什么时候|哪天|哪一天|几号|哪年|哪一年|何时|多久以前",
    re.IGNORECASE,
)
_WANTS_LATEST = re.compile(
    r"\b(last time|latest|recent(ly)?|yesterday|today|earlier|previous(ly)?|just now"
    r"|this (morning|week|month)|last (week|month|night|session))\b"
    r"|上次|之前|刚才|昨天|今天|最近|前几天|上周|上个月",
    re.IGNORECASE,
)
# A question about everything said at a time ("what did we talk about on May 2", "what topics
# did we discuss then", "remind me what we covered", "那天聊了哪些"), recognised by its shape:
# a wh-word, perhaps a noun, the conversation's own people and a verb of talking. Not "what did
# I do on May 2": an event is often told days after it (time_window_slack_days).
_BROAD = re.compile(
    r"\b(?:what|which)\b(?:\s+[\w'-]+){0,3}?\s+(?:did|do|have|had)\s+(?:we|you and i|you and me|i|you)\b"
    r"(?:\s+[\w'-]+){0,2}?\s+(?:talk(?:ed)?|chat(?:ted)?|discuss(?:ed)?|speak|spoke|say|said"
    r"|cover(?:ed)?|go over|went over|go through|went through|mention(?:ed)?)\b"
    r"|\bwhat (?:did|have|had|do) (?:\w+ )?(?:\w+ )?(?:talk|chat|discuss|speak|say)"
    r"|\bwhat (?:was|were) (?:said|discussed|talked about|covered)\b"
    r"|\b(?:remind me|tell me|recap|summari[sz]e) (?:of |about )?what (?:we|you and i|i) "
    r"(?:talked|chatted|discussed|covered|said|went over)"
    r"|\bwhat (?:came up|topics|subjects)\b"
    r"|\bwhat (?:were|was) (?:we|you and i) (?:talking|chatting|discussing)\b|\bwhat did i tell you\b"
    r"|聊了|谈了|讨论了|说了(?:什么|哪些)|聊的|谈的|话题|聊(?:过)?(?:什么|啥|哪些)|聊过|谈过|讨论的|讨论过|讲了什么",
    re.IGNORECASE,
)
_TIME_EXPRESSION = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last|next|recently|weekend|week|month|year"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day|" + "|".join(calendar.month_name[1:]).lower()
    + r"|(?:19|20)\d\d)\b|昨天|今天|明天|前天|上周|下周|上个月|下个月|去年|今年|明年|年前|天前"
    r"|星期|周末|\d+\s*[年月日号]",
    re.IGNORECASE,
)
_ISO_DATE = re.compile(r"\b(?P<year>(?:19|20)\d\d)[-/.](?P<month>\d{1,2})[-/.](?P<day>\d{1,2})\b")
_DAY_MONTH_YEAR = re.compile(
    rf"\b(?:(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}"
    rf"|(?P<month2>{_MONTH_NAMES})\.?\s+(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?)"
    r"(?:,?\s+(?P<year>(?:19|20)\d\d))?\b",
    re.IGNORECASE,
)
_MONTH_YEAR = re.compile(rf"\b(?:in\s+)?{_MONTH}(?:,?\s+(?P<year>(?:19|20)\d\d))?\b", re.IGNORECASE)
_YEAR = re.compile(r"\bin\s+(?P<year>(?:19|20)\d\d)\b")
_ZH_DATE = re.compile(r"(?:(?P<year>(?:19|20)\d\d)\s*年)?\s*(?P<month>\d{1,2})\s*月(?:\s*(?P<day>\d{1,2})\s*[日号])?")
_TODAY = re.compile(r"\btoday\b|今天", re.IGNORECASE)
# Ranges: each side is read as a date of its own.
_BETWEEN = re.compile(
    r"\b(?:between|from)\s+(?P<first>.+?)\s+(?:and|to|until|through)\s+(?P<second>.+)"
    r"|(?P<zfirst>(?:(?:19|20)\d\d\s*年)?\d{1,2}\s*月\s*\d{1,2}\s*[日号]?)\s*(?:到|至)\s*"
    r"(?P<zsecond>(?:\d{1,2}\s*月)?\s*\d{1,2}\s*[日号]?)",
    re.IGNORECASE,
)
_BEFORE = re.compile(
    r"\b(?:the\s+)?(?:(?P<n>\d+|an?|one|two|three|four|five|six)\s+)?(?P<unit>day|week|weekend)s?"
    r"\s+before\s+(?P<rest>.+)",
    re.IGNORECASE,
)
# "as of December 2023", "截至2023年12月": the state up to then, so every earlier time counts.
_AS_OF = re.compile(
    rf"\bas of\s+(?P<rest>(?:\d|(?:{_MONTH_NAMES})\b).+)|截(?:至|止)到?(?P<zrest>\d.+)", re.IGNORECASE
)
_BEGINNING = 0.0  # the epoch: "as of" a date reaches back to any time stored
_ZH_BEFORE = re.compile(r"(?P<rest>.+?)(?:的|之)?前(?P<n>\d+|[一两二三四五六七八九十])\s*个?(?P<unit>天|周|星期)")


class TimeQuery(BaseModel):
    asks_when: bool  # "when did ...": memories that carry a time answer it
    wants_latest: bool  # "last time", "recently", "上次": newer memories first
    window: tuple[float, float] | None = None  # a named date: [start, end) in epoch seconds
    broad: bool = False  # "what did we talk about (then)": that time's sessions, not one fact


def searched_window(time: TimeQuery, slack_days: float) -> tuple[float, float] | None:
    """When the episodes the query is about happened: the date it names, reaching
    `slack_days` past it (people tell of a day after it), except for a question about
    everything said on that date.

    >>> searched_window(TimeQuery(asks_when=False, wants_latest=False, window=(0.0, 86_400.0)), 7)
    (0.0, 691200.0)
    >>> searched_window(TimeQuery(asks_when=False, wants_latest=False, window=(0.0, 86_400.0), broad=True), 7)
    (0.0, 86400.0)
    """
    if time.window is None:
        return None
    start, end = time.window
    return (start, end) if time.broad else (start, end + slack_days * SECONDS_PER_DAY)


def has_time_expression(text: str) -> bool:
    """Whether a memory carries a time: a date, a weekday, "last week", "3 years ago", "去年".

    >>> has_time_expression("I went to Bali last year"), has_time_expression("我去年去了巴厘岛")
    (True, True)
    >>> has_time_expression("I love yoga")
    False
    """
    return _TIME_EXPRESSION.search(text) is not None


def _epoch(moment: datetime) -> float:
    return moment.replace(tzinfo=UTC).timestamp()


def _latest(year: int | None, month: int, day: int | None, now: datetime) -> datetime | None:
    """The date named; without a year, the latest such date not after `now`."""
    try:
        if year is not None:
            return datetime(year, month, day or 1)
        candidate = datetime(now.year, month, day or 1)
        return candidate if candidate <= now else datetime(now.year - 1, month, day or 1)
    except ValueError:
        return None  # "February 30": no such day


def _span(start: datetime, *, day: bool, month: bool) -> tuple[float, float]:
    if day:
        end = start + timedelta(days=1)
    elif month:
        end = _next_month(start)
    else:
        end = datetime(start.year + 1, 1, 1)
    return _epoch(start), _epoch(end)


def date_window(query: str, now: datetime) -> tuple[float, float] | None:
    """The time the query names, as a [start, end) window: a range ("between May 2 and May
    4", "the week before 16 November", "5月2号到5月4号", "5月2号的前一周"), all time up to
    a date ("as of September 2023", "截至9月"), a part of a month or a season ("the first
    weekend of October", "8月底", "summer 2021"), else its first date.

    >>> def days(span): return [datetime.fromtimestamp(t, UTC).date().isoformat() for t in span]
    >>> now = datetime(2024, 1, 10)
    >>> days(date_window("Where was John between August 11 and August 15 2023?", now))
    ['2023-08-11', '2023-08-16']
    >>> days(date_window("Where was Tim in the week before 16 November 2023?", now))
    ['2023-11-09', '2023-11-16']
    >>> days(date_window("What did he get two weeks before August 11, 2023?", now))
    ['2023-07-28', '2023-08-11']
    >>> days(date_window("How many pets did Andrew have, as of September 2023?", now))
    ['1970-01-01', '2023-10-01']
    >>> days(date_window("截至2023年9月阿杰养了几只狗？", now))
    ['1970-01-01', '2023-10-01']
    >>> days(date_window("As of now, what did she plant in May 2023?", now))
    ['2023-05-01', '2023-06-01']
    >>> days(date_window("Where was Calvin in the last week of October 2023?", now))
    ['2023-10-25', '2023-11-01']
    >>> days(date_window("阿杰2023年4月的第二周在忙什么？", now))
    ['2023-04-08', '2023-04-15']
    >>> days(date_window("5月2号到4号之间我们聊了什么", now)), days(date_window("2023年5月2号的前一周", now))
    (['2023-05-02', '2023-05-05'], ['2023-04-25', '2023-05-02'])
    """
    if match := _BETWEEN.search(query):
        first = _one_date(match["first"] or match["zfirst"], now)
        second_text = match["second"] or match["zsecond"]
        if match["zfirst"] and "月" not in second_text:  # "5月2号到4号": the first's month
            second_text = match["zfirst"].split("月")[0] + "月" + second_text
        second = _one_date(second_text, now)
        if first is not None and second is not None and first[0] < second[1]:
            return first[0], second[1]
    if match := _BEFORE.search(query) or _ZH_BEFORE.search(query):
        anchor = _one_date(match["rest"], now)
        if anchor is not None:
            count = match["n"] or "1"
            n = int(count) if count.isdigit() else _NUMBERS.get(count.lower(), 1)
            days = n * (1 if match["unit"].lower() in ("day", "天") else 7)
            return anchor[0] - days * SECONDS_PER_DAY, anchor[0]
    if match := _AS_OF.search(query):
        until = _one_date(match["rest"] or match["zrest"], now)
        if until is not None:
            return _BEGINNING, until[1]
    if part := month_part(query, lambda text: _month_at_start(text, now)):
        return _epoch(part[0]), _epoch(part[1])
    return _one_date(query, now)


def _month_at_start(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The month a phrase starts with ("October 2023", "8月", "2023年8月"), as [its first day,
    the next month's first day)."""
    text = text.strip()
    if match := _MONTH_YEAR.match(text):
        year, month = (int(match["year"]) if match["year"] else None), _MONTHS[match["month"].lower()]
    elif (match := _ZH_DATE.match(text)) and not match["day"]:
        year, month = (int(match["year"]) if match["year"] else None), int(match["month"])
    else:
        return None
    found = _latest(year, month, None, now) if 1 <= month <= 12 else None
    return None if found is None else (found, _next_month(found))


def _next_month(start: datetime) -> datetime:
    """The first day of the month after `start`'s."""
    return datetime(start.year + start.month // 12, start.month % 12 + 1, 1)


def _one_date(query: str, now: datetime) -> tuple[float, float] | None:
    """The first date the query names, as a [start, end) window."""
    if match := _ISO_DATE.search(query):
        found = _latest(int(match["year"]), int(match["month"]), int(match["day"]), now)
        return _span(found, day=True, month=False) if found else None
    if match := _DAY_MONTH_YEAR.search(query):
        year = int(match["year"]) if match["year"] else None
        day = int(match["day"] or match["day2"])
        month = _MONTHS[(match["month"] or match["month2"]).lower()]
        found = _latest(year, month, day, now)
        return _span(found, day=True, month=False) if found else None
    if match := _ZH_DATE.search(query):
        zh_year = int(match["year"]) if match["year"] else None
        zh_day = int(match["day"]) if match["day"] else None
        month = int(match["month"])
        found = _latest(zh_year, month, zh_day, now) if 1 <= month <= 12 else None
        return _span(found, day=zh_day is not None, month=zh_day is None) if found else None
    if match := _MONTH_YEAR.search(query):
        # A bare "may" or "march" is usually a verb: only a capitalised month, or one with a
        # year or "in" before it, is a date.
        word = match["month"]
        if match["year"] or word[0].isupper() and len(word) > 3 or match.group(0).lower().startswith("in "):
            year = int(match["year"]) if match["year"] else None
            found = _latest(year, _MONTHS[word.lower()], None, now)
            return _span(found, day=False, month=True) if found else None
    if match := _YEAR.search(query):
        return _span(datetime(int(match["year"]), 1, 1), day=False, month=False)
    if _TODAY.search(query):
        start = datetime(now.year, now.month, now.day)
        return _span(start, day=True, month=False)
    # "yesterday", "last Tuesday", "two weeks ago", "上周三", "前天", "上个月初"
    return relative_span(query, _epoch(now))


def time_query(query: str, now: float) -> TimeQuery:
    """What the query asks about time, relative to `now` (epoch seconds).

    >>> from datetime import datetime, UTC
    >>> now = datetime(2024, 1, 10, tzinfo=UTC).timestamp()
    >>> found = time_query("What was Sam doing on December 4, 2023?", now)
    >>> found.asks_when, [datetime.fromtimestamp(t, UTC).date().isoformat() for t in found.window]
    (False, ['2023-12-04', '2023-12-05'])
    >>> found = time_query("When did we move to Postgres? Was it in May?", now)
    >>> found.asks_when, [datetime.fromtimestamp(t, UTC).date().isoformat() for t in found.window]
    (True, ['2023-05-01', '2023-06-01'])
    >>> time_query("上次的预算是多少", now).wants_latest, time_query("May I ask?", now).window
    (True, None)
    >>> time_query("What did we talk about last Tuesday?", now).broad, time_query("在1月2日我们聊了哪些话题", now).broad
    (True, True)
    """
    moment = datetime.fromtimestamp(now, UTC).replace(tzinfo=None)
    return TimeQuery(
        asks_when=_ASKS_WHEN.search(query) is not None,
        wants_latest=_WANTS_LATEST.search(query) is not None,
        window=date_window(query, moment),
        broad=_BROAD.search(query) is not None,
    )
