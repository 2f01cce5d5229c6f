"""A part of a named month or a season, pure: "the first weekend of October 2023", "the last
two weeks of August", "mid-August", "the beginning of November 2022", "summer 2021",
"8月的第一个周末", "10月最后一周", "11月初", "2023年夏天".

A question about a part of a month wants the turns of those days, not of the whole month:
the month's other sessions hold the same people doing other things.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

__all__ = ["month_part"]

Window = tuple[datetime, datetime]

_ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
    "last": -1, "一": 1, "1": 1, "二": 2, "2": 2, "三": 3, "3": 3, "四": 4, "4": 4,
}  # fmt: skip
_COUNTS = {"two": 2, "three": 3, "2": 2, "3": 3, "两": 2, "二": 2, "三": 3}
# Thirds and halves of a month, as (first day, last day + 1) offsets; 31 reaches its end.
_EDGES = {
    "beginning": (0, 10), "start": (0, 10), "early": (0, 10), "middle": (10, 20), "mid": (10, 20),
    "end": (20, 31), "late": (20, 31), "first half": (0, 15), "second half": (15, 31),
    "初": (0, 10), "上旬": (0, 10), "中": (10, 20), "中旬": (10, 20), "底": (20, 31),
    "末": (20, 31), "下旬": (20, 31), "上半月": (0, 15), "下半月": (15, 31),
}  # fmt: skip
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "春": 3, "夏": 6, "秋": 9}

_EN_WEEKS = re.compile(
    r"\b(?:the\s+)?(?P<ord>first|1st|second|2nd|third|3rd|fourth|4th|last)\s+"
    r"(?:(?P<n>two|three|2|3)\s+)?(?P<unit>weekend|week)s?\s+(?:of|in)\s+(?P<rest>.+)",
    re.IGNORECASE,
)
_EN_EDGE = re.compile(
    r"\b(?P<edge>beginning|start|middle|end|first half|second half)\s+of\s+(?P<rest>.+)"
    r"|\b(?P<pre>early|mid|late)[-\s]+(?P<prerest>.+)",
    re.IGNORECASE,
)
_EN_SEASON = re.compile(
    r"\b(?:(?P<edge>beginning|start|end)\s+of\s+)?(?:the\s+)?(?P<season>spring|summer|fall|autumn)"
    r"\s+(?:of\s+)?(?P<year>(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
_ZH_MONTH = r"(?P<month>(?:(?:19|20)\d\d\s*年)?\s*\d{1,2}\s*月)(?:份)?的?"
_ZH_PART = re.compile(
    _ZH_MONTH + r"(?:第(?P<ord>[一二三四1-4])个?(?P<unit>周末|周|星期|礼拜)"
    r"|最后(?P<n>[一两二三2-3])?个?(?P<unit2>周末|周|星期|礼拜)"
    r"|(?P<edge>上半月|下半月|上旬|中旬|下旬|初|中|底|末))"
)
_ZH_SEASON = re.compile(r"(?P<year>(?:19|20)\d\d)\s*年的?(?P<season>春|夏|秋)(?:天|季)(?P<edge>初|末)?")

_WEEK = timedelta(days=7)
_SATURDAY = 5


def month_part(query: str, month_of: Callable[[str], Window | None]) -> Window | None:
    """The days of a part of a month or of a season the query names, else None. `month_of`
    reads the month a phrase names ("October 2023", "8月") as [first day, next month's
    first day), or None when the phrase names no whole month.

    >>> def month_of(text):
    ...     months = {"october 2023": (2023, 10), "august 2023": (2023, 8), "8月": (2023, 8)}
    ...     found = next((v for k, v in months.items() if text.lower().startswith(k)), None)
    ...     return None if found is None else (datetime(*found, 1), datetime(found[0], found[1] + 1, 1))
    >>> def days(window): return [d.date().isoformat() for d in window]
    >>> days(month_part("What was Dave doing in the first weekend of October 2023?", month_of))
    ['2023-10-06', '2023-10-09']
    >>> days(month_part("Where was Dave in the last two weeks of August 2023?", month_of))
    ['2023-08-18', '2023-09-01']
    >>> days(month_part("Which classes did Evan join in mid-August 2023?", month_of))
    ['2023-08-11', '2023-08-21']
    >>> days(month_part("What happened towards the end of summer 2023?", month_of))
    ['2023-08-01', '2023-09-01']
    >>> days(month_part("阿杰8月的第一个周末在做什么？", month_of)), days(month_part("8月底", month_of))
    (['2023-08-04', '2023-08-07'], ['2023-08-21', '2023-09-01'])
    >>> month_part("What did Dave do in October 2023?", month_of) is None
    True
    """
    if match := _EN_SEASON.search(query) or _ZH_SEASON.search(query):
        first = datetime(int(match["year"]), _SEASONS[match["season"].lower()], 1)
        months = [first.replace(month=first.month + i) for i in range(4)]  # ends with the next
        edge = (match["edge"] or "").lower()
        if edge in ("beginning", "start", "初"):
            return months[0], months[1]
        if edge in ("end", "末"):
            return months[2], months[3]
        return months[0], months[3]
    if match := _EN_WEEKS.search(query) or _ZH_PART.search(query):
        groups = match.groupdict()
        month = month_of(groups.get("rest") or groups["month"])
        if month is None:
            return None
        if groups.get("edge"):
            return _edge(month, groups["edge"])
        unit = (groups.get("unit") or groups.get("unit2") or "").lower()
        weekend = unit in ("weekend", "周末")
        order = -1 if groups.get("unit2") else _ORDINALS[groups["ord"].lower()]
        count = _COUNTS.get((groups.get("n") or "").lower(), 1)
        return _weekend(month, order) if weekend else _weeks(month, order, count)
    if match := _EN_EDGE.search(query):
        month = month_of(match["rest"] or match["prerest"])
        return None if month is None else _edge(month, (match["edge"] or match["pre"]).lower())
    return None


def _edge(month: Window, edge: str) -> Window:
    first, last = _EDGES[edge]
    start = month[0] + timedelta(days=first)
    return start, min(month[0] + timedelta(days=last), month[1])


def _weeks(month: Window, order: int, count: int) -> Window:
    """The `order`-th `count` weeks of the month (-1: its last), counted from its first day
    or back from its end."""
    if order < 0:
        return month[1] - count * _WEEK, month[1]
    start = month[0] + (order - 1) * _WEEK
    return start, min(start + count * _WEEK, month[1])


def _weekend(month: Window, order: int) -> Window:
    """Friday to Sunday around the month's `order`-th Saturday (-1: its last)."""
    first_saturday = month[0] + timedelta(days=(_SATURDAY - month[0].weekday()) % 7)
    if order < 0:
        saturday = first_saturday + ((month[1] - first_saturday).days - 1) // 7 * _WEEK
    else:
        saturday = first_saturday + (order - 1) * _WEEK
    return saturday - timedelta(days=1), saturday + timedelta(days=2)
