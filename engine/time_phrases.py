"""Relative times a sentence names, resolved against when it was said. Pure.

"yesterday", "last year", "two weeks ago", "last Saturday", "昨天", "上周三", "三年前": each is
a span of the calendar counted back from the moment of the sentence, so that "I painted it
last year", said in May 2023, is kept as 2022. `named_spans` also reads what is to come
("tomorrow", "next month", "下周三"). Absolute dates ("on 4 May", "2023年5月") are
read by `engine.recall.time_query.date_window`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from engine.text import word_bounds

__all__ = ["NUMBERS", "NamedSpan", "named_spans", "relative_span", "relative_time"]

NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3, "a few": 3,
    "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
    "十": 10, "几": 3,
}  # fmt: skip
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_UNIT_DAYS = {"day": 1, "week": 7, "天": 1, "日": 1, "周": 7, "星期": 7, "个星期": 7, "礼拜": 7}
_MONTH_UNITS = {"month": 1, "year": 12, "个月": 1, "月": 1, "年": 12}

_AGO = re.compile(
    r"\b(?P<n>\d+|a few|a couple of|couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten|few)"
    r"\s+(?P<unit>day|week|month|year)s?\s+ago\b"
    r"|(?P<zn>\d+|[一两二三四五六七八九十几])\s*(?P<zunit>天|日|周|个星期|星期|礼拜|个月|年)(?:以|之)?前",
    re.IGNORECASE,
)
# Full names, and the short forms that are no other word ("last sat" is a verb, "sun" a star).
_WEEKDAY_NAMES = {**{d: i for i, d in enumerate(_WEEKDAYS)}, "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3,
                  "thur": 3, "thurs": 3, "fri": 4}  # fmt: skip
_LAST_WEEKDAY = re.compile(
    r"\blast\s+(?P<day>" + "|".join(sorted(_WEEKDAY_NAMES, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
_ZH_LAST_WEEKDAY = re.compile(r"上(?:个)?(?:周|星期|礼拜)(?P<day>[一二三四五六日天])")
_LAST_PERIOD = re.compile(
    r"\b(?P<en>yesterday|last night|last weekend|last week|last month|last year)\b"
    r"|(?P<zh>前天|昨天|昨晚|上周末|上周|上个星期|上星期|上个月|去年|前年)(?P<part>初|中|底|末)?",
    re.IGNORECASE,
)
_NEXT_PERIOD = re.compile(
    r"\b(?P<en>tomorrow|next weekend|next week|next month|next year)\b"
    r"|(?P<zh>明天|后天|下周末|下周|下个星期|下星期|下个月|明年|后年)(?P<part>初|中|底|末)?",
    re.IGNORECASE,
)
_ZH_NEXT_WEEKDAY = re.compile(r"下(?:个)?(?:周|星期|礼拜)(?P<day>[一二三四五六日天])")
# "on the 17th": a day of the month nearest the moment said, before or after it.
_DAY_OF_MONTH = re.compile(r"\bon the (?P<dom>[12]\d|3[01]|[1-9])(?:st|nd|rd|th)\b", re.IGNORECASE)
_PAST = (_AGO, _LAST_WEEKDAY, _ZH_LAST_WEEKDAY, _LAST_PERIOD)
_FUTURE = (_NEXT_PERIOD, _ZH_NEXT_WEEKDAY)
# phrase -> (days, months) from the moment said to where the span starts
_PERIODS = {
    "yesterday": (-1, 0), "last night": (-1, 0), "last weekend": (-7, 0), "last week": (-7, 0),
    "last month": (0, -1), "last year": (0, -12), "昨天": (-1, 0), "昨晚": (-1, 0), "前天": (-2, 0),
    "上周末": (-7, 0), "上周": (-7, 0), "上个星期": (-7, 0), "上星期": (-7, 0), "上个月": (0, -1),
    "去年": (0, -12), "前年": (0, -24),
    "tomorrow": (1, 0), "next weekend": (1, 0), "next week": (1, 0), "next month": (0, 1),
    "next year": (0, 12), "明天": (1, 0), "后天": (2, 0), "下周末": (1, 0), "下周": (1, 0),
    "下个星期": (1, 0), "下星期": (1, 0), "下个月": (0, 1), "明年": (0, 12), "后年": (0, 24),
}  # fmt: skip
# How long each span lasts, by its phrase or unit: a day unless named here.
_SPAN_DAYS = {"last weekend": 7, "last week": 7, "上周末": 7, "上周": 7, "上个星期": 7, "上星期": 7,
              "week": 7, "周": 7, "个星期": 7, "星期": 7, "礼拜": 7, "next weekend": 7, "next week": 7,
              "下周末": 7, "下周": 7, "下个星期": 7, "下星期": 7}  # fmt: skip
# 上个月初 / 中 / 底: the first, middle or last ten days of the month
_MONTH_PART = {"初": (0, 10), "中": (10, 20), "底": (20, 31), "末": (20, 31)}


def _shift(moment: datetime, days: int, months: int) -> datetime:
    """The start of the day, month or year `days` or `months` from the moment (back when
    negative): a whole number of years counts from 1 January."""
    if months % 12 == 0 and months:
        return datetime(moment.year + months // 12, 1, 1)
    if months:
        return _months_forward(moment, months)
    day = moment + timedelta(days=days)
    return datetime(day.year, day.month, day.day)


def relative_time(text: str, at: float) -> float | None:
    """The start (epoch seconds) of the first relative time `text` names, said at `at`.

    >>> at = datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()
    >>> def day(t): return datetime.fromtimestamp(t, UTC).date().isoformat()
    >>> day(relative_time("I painted that lake sunrise last year.", at))
    '2022-01-01'
    >>> day(relative_time("I went to a support group yesterday", at)), day(relative_time("two weeks ago", at))
    ('2023-05-07', '2023-04-24')
    >>> day(relative_time("last Saturday we ran", at)), day(relative_time("我上周三去了杭州", at))
    ('2023-05-06', '2023-05-03')
    >>> day(relative_time("三年前我搬到了上海", at)), relative_time("I love painting", at) is None
    ('2020-01-01', True)
    """
    span = relative_span(text, at)
    return span[0] if span is not None else None


def relative_span(text: str, at: float) -> tuple[float, float] | None:
    """The first relative time `text` names, said at `at`, as a [start, end) span: a day, a
    week, a month (or a third of one: "上个月初") or a year. A count back ("two weeks ago")
    goes before a weekday, and a weekday before a period, wherever each stands.

    >>> at = datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()  # a Monday
    >>> def days(span): return [datetime.fromtimestamp(t, UTC).date().isoformat() for t in span]
    >>> days(relative_span("what did we do last Tuesday?", at)), days(relative_span("前天", at))
    (['2023-05-02', '2023-05-03'], ['2023-05-06', '2023-05-07'])
    >>> days(relative_span("I joined last Tues.", at)), relative_span("where I last sat", at)
    (['2023-05-02', '2023-05-03'], None)
    >>> days(relative_span("two weeks ago", at)), days(relative_span("上个月初聊了什么", at))
    (['2023-04-24', '2023-05-01'], ['2023-04-01', '2023-04-11'])
    >>> days(relative_span("last month", at)), days(relative_span("去年", at))
    (['2023-04-01', '2023-05-01'], ['2022-01-01', '2023-01-01'])
    >>> days(relative_span("上个月底", at))
    ['2023-04-21', '2023-05-01']
    """
    moment = _moment(at)
    for pattern in _PAST:
        for match in pattern.finditer(text):
            if _whole_words(text, match):
                return _span(pattern, match, moment)
    return None


class NamedSpan(NamedTuple):
    """A time phrase of a text, where it stands, and the [start, end) span it names."""

    phrase: str
    position: int
    start: float
    end: float


def named_spans(text: str, at: float) -> list[NamedSpan]:
    """Every relative time `text` names, past or to come, said at `at`, in reading order; of
    phrases that overlap, the first.

    >>> at = datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()  # a Monday
    >>> def days(text): return [(s.phrase, datetime.fromtimestamp(s.start, UTC).date().isoformat(),
    ...                          datetime.fromtimestamp(s.end, UTC).date().isoformat())
    ...                         for s in named_spans(text, at)]
    >>> days("Yesterday I ran, and next month we fly; two weeks ago I moved.")
    [('Yesterday', '2023-05-07', '2023-05-08'), ('next month', '2023-06-01', '2023-07-01'), ('two weeks ago', '2023-04-24', '2023-05-01')]
    >>> days("明天开会，下周三出差")
    [('明天', '2023-05-09', '2023-05-10'), ('下周三', '2023-05-17', '2023-05-18')]
    >>> days("I bought it on the 3rd")
    [('on the 3rd', '2023-05-03', '2023-05-04')]
    >>> days("next week"), days("I love painting"), days("然后天气变冷了，说明天气预报不准")
    ([('next week', '2023-05-09', '2023-05-16')], [], [])
    """
    moment = _moment(at)
    found = sorted(
        (match.start(), -match.end(), pattern, match)
        for pattern in (*_PAST, *_FUTURE, _DAY_OF_MONTH)
        for match in pattern.finditer(text)
        if _whole_words(text, match)
    )
    spans: list[NamedSpan] = []
    reached = 0
    for position, _, pattern, match in found:
        if position < reached:
            continue
        reached = match.end()
        start, end = _span(pattern, match, moment)
        spans.append(NamedSpan(match.group(0), position, start, end))
    return spans


def _whole_words(text: str, match: re.Match[str]) -> bool:
    """Whether a phrase begins a word of its text rather than inside one: a Chinese one starts
    where one of jieba's words does ("然后天气" holds no "后天"; its end may fall inside a word,
    as "下个月初" is cut "下个 / 月初"); an English one is cut by `\\b`."""
    return match.group(0).isascii() or match.start() in word_bounds(text)


def _moment(at: float) -> datetime:
    return datetime.fromtimestamp(at, UTC).replace(tzinfo=None)


def _span(pattern: re.Pattern[str], match: re.Match[str], moment: datetime) -> tuple[float, float]:
    """The [start, end) span one phrase names, said at `moment`."""
    days, months = 1, 0  # the span's length
    if pattern is _AGO:
        count = match["n"] or match["zn"]
        n = int(count) if count.isdigit() else NUMBERS.get(count.lower(), 1)
        unit = (match["unit"] or match["zunit"]).lower()
        if unit in _UNIT_DAYS:
            start = _shift(moment, -n * _UNIT_DAYS[unit], 0)
            days = _SPAN_DAYS.get(unit, 1)
        else:
            start = _shift(moment, 0, -n * _MONTH_UNITS[unit])
            days, months = 0, _MONTH_UNITS[unit]
    elif pattern is _DAY_OF_MONTH:
        start = _nearest_day(moment, int(match["dom"]))
    elif pattern is _LAST_WEEKDAY:  # "last Saturday": the latest Saturday before today
        back = (moment.weekday() - _WEEKDAY_NAMES[match["day"].lower()] - 1) % 7 + 1
        start = _shift(moment, -back, 0)
    elif pattern is _ZH_LAST_WEEKDAY or pattern is _ZH_NEXT_WEEKDAY:  # a day of the calendar week before or after
        weekday = _ZH_WEEKDAYS[match["day"]]
        offset = -(moment.weekday() + 7 - weekday) if pattern is _ZH_LAST_WEEKDAY else 7 - moment.weekday() + weekday
        start = _shift(moment, offset, 0)
    else:
        phrase = (match["en"] or match["zh"]).lower()
        shift_days, shift_months = _PERIODS[phrase]
        start = _shift(moment, shift_days, shift_months)
        if shift_months:
            days, months = 0, 12 if shift_months % 12 == 0 else 1
        else:
            days = _SPAN_DAYS.get(phrase, 1)
        if match.groupdict().get("part") and months == 1:  # a third of the month, not past its end
            first, last = _MONTH_PART[match["part"]]
            month_end = _months_forward(start, 1)
            start = start + timedelta(days=first)
            return _epoch(start), _epoch(min(start + timedelta(days=last - first), month_end))
    end = _months_forward(start, months) if months else start + timedelta(days=days)
    return _epoch(start), _epoch(end)


def _nearest_day(moment: datetime, day: int) -> datetime:
    """The `day` of a month around `moment` nearest to it, a day to come counting twice as far
    (people tell more of what was than of what will be); a month without that day is passed
    over.

    >>> [_nearest_day(datetime(2023, 8, 19, 14), d).date().isoformat() for d in (17, 25, 31, 3)]
    ['2023-08-17', '2023-08-25', '2023-07-31', '2023-08-03']
    >>> _nearest_day(datetime(2023, 3, 2), 30).date().isoformat()
    '2023-01-30'
    """
    today = datetime(moment.year, moment.month, moment.day)
    found = []
    for offset in (-2, -1, 0, 1):
        first = _months_forward(today, offset)
        try:
            found.append(first.replace(day=day))
        except ValueError:  # no such day in that month
            continue
    return min(found, key=lambda d: ((d - today).days * 2 if d > today else (today - d).days, d))


def _months_forward(moment: datetime, months: int) -> datetime:
    index = moment.year * 12 + moment.month - 1 + months
    return datetime(index // 12, index % 12 + 1, 1)


def _epoch(moment: datetime) -> float:
    return moment.replace(tzinfo=UTC).timestamp()
