"""Rule-based extraction of decisions, numbers and todos (English and Chinese). Pure functions."""

from __future__ import annotations

import re

from engine.models import NumberMention
from engine.text import split_sentences

__all__ = ["decision_cue", "decision_topics", "find_decisions", "find_numbers", "find_todos"]

_DECISION = re.compile(
    r"\b(?:we|i|they|team)\s+(?:have\s+|had\s+)?(?:decided|agreed|chose|picked|settled)\b"
    r"|\bdecided\s+(?:to|on|that)\b"
    r"|\blet'?s\s+go\s+with\b"
    r"|\b(?:we(?:'re| are)|i'?m)\s+going\s+with\b"
    r"|\bwe(?:'ll| will)\s+(?:go|use|stick)\s+with\b"
    r"|\b(?:changed|switched|moved|switching|changing)\s+(?:it\s+)?to\b"
    r"|\bthe\s+decision\s+is\b"
    r"|\b(?:ship\s+it|go\s+ahead\s+with|approved?|lgtm)\b|批准|同意"
    r"|决定|改成|改为|改用|定了|敲定|确定了|就用|换成",
    re.IGNORECASE,
)
_TODO = re.compile(
    r"^\s*(?:todo|to-do|action item)\s*[:：]"
    r"|\b(?:need to|needs to|remember to|don't forget to|must|should)\s+\w+"
    r"|待办|记得|别忘了|需要|要记住",
    re.IGNORECASE,
)
# A number with optional currency before and unit or multiplier after.
_NUMBER = re.compile(
    r"(?P<pre>[$€£¥])?\s?(?P<num>\d+(?:[.,]\d+)*)\s?"
    r"(?P<mult>万|亿|千|k\b|m\b|bn\b|million\b|billion\b|thousand\b)?\s?"
    r"(?P<unit>%|元|块|美元|人民币|rmb\b|cny\b|usd\b|eur\b|dollars?\b|euros?\b|days?\b|hours?\b|"
    r"minutes?\b|ms\b|gb\b|mb\b|tb\b|km\b|kg\b|天|小时|分钟|个|人|次)?",
    re.IGNORECASE,
)
_MULTIPLIERS = {
    "万": 1e4, "亿": 1e8, "千": 1e3, "k": 1e3, "thousand": 1e3,
    "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9,
}
_CURRENCY = {
    "$": "USD", "€": "EUR", "£": "GBP", "¥": "CNY", "元": "CNY", "块": "CNY", "人民币": "CNY",
    "rmb": "CNY", "cny": "CNY", "美元": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD",
    "eur": "EUR", "euro": "EUR", "euros": "EUR",
}
_CONTEXT_CHARS = 12
_CN_MONEY_WORDS = ("预算", "价格", "费用", "成本", "工资", "报价", "金额")


def decision_cue(sentence: str) -> int | None:
    """Where a sentence's words of deciding begin ("decided to", "we're going with", "决定"),
    or None when it has none.

    >>> decision_cue("I love chess, so I decided to make a game"), decision_cue("Chess is fun")
    (17, None)
    """
    match = _DECISION.search(sentence)
    return match.start() if match else None


def find_decisions(text: str) -> list[str]:
    """Sentences that state a decision.

    >>> find_decisions("Hmm. We decided to go with Postgres. 预算改成50万。")
    ['We decided to go with Postgres.', '预算改成50万。']
    """
    return [s for s in split_sentences(text) if _DECISION.search(s)]


def find_todos(text: str) -> list[str]:
    """Sentences that ask for something to be done later.

    >>> find_todos("TODO: rotate the keys. Fine. 记得明天发邮件")
    ['TODO: rotate the keys.', '记得明天发邮件']
    """
    return [s for s in split_sentences(text) if _TODO.search(s)]


def find_numbers(text: str) -> list[NumberMention]:
    """Numbers with their unit and the words before them.

    value x multiplier (万 = 10^4, k = 10^3, million = 10^6 ...); a bare Chinese amount after a
    money word (预算, 价格 ...) is taken as CNY.

    >>> [(n.value, n.unit, n.context) for n in find_numbers("预算改成50万")]
    [(500000.0, 'CNY', '预算改成')]
    """
    found = []
    for match in _NUMBER.finditer(text):
        raw = match.group("num")
        digits = raw.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw) else raw
        try:
            value = float(digits.replace(",", "."))
        except ValueError:
            continue
        mult = (match.group("mult") or "").lower()
        value *= _MULTIPLIERS.get(mult, 1.0)
        unit_text = (match.group("unit") or "").lower()
        unit = _CURRENCY.get(match.group("pre") or "") or _CURRENCY.get(unit_text) or (unit_text or None)
        context = text[max(0, match.start() - _CONTEXT_CHARS) : match.start()].strip()
        if unit is None and mult in ("万", "亿") and any(w in context for w in _CN_MONEY_WORDS):
            unit = "CNY"
        found.append(
            NumberMention(value=value, unit=unit, text=match.group().strip(), context=context)
        )
    return found


# Quantities a decision can set: a later decision about the same one replaces it.
_TOPICS = re.compile(
    r"\b(budget|price|pricing|cost|deadline|salary|headcount|launch date|release date|"
    r"due date|timeline|rate|quota|limit)s?\b"
    r"|(预算|价格|费用|成本|工资|报价|金额|人数|截止日期|上线时间|发布时间|工期|名额)",
    re.IGNORECASE,
)


def decision_topics(text: str) -> list[str]:
    """The quantities a decision text sets, as subject keys.

    >>> decision_topics("预算改成60万"), decision_topics("We moved the launch date and the budget.")
    (['topic:预算'], ['topic:budget', 'topic:launch date'])
    """
    found = {f"topic:{(m.group(1) or m.group(2)).lower()}" for m in _TOPICS.finditer(text)}
    return sorted(found)
