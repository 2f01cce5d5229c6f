"""Which fact a question asks for: "Where does Sam work?" asks Sam's `works_at`, "小王住在哪里？"
his `lives_in`, "What is Sam's favorite food?" his `favorite_food`. Such a question has one
current answer, and a fact of that predicate about the person it names is that answer
(`engine.recall.facts`); "Does Leo like jazz?" asks his `likes` of the thing it names, "Does
Ana have a cat?" her `has`. Pure, English and Chinese.
"""

from __future__ import annotations

import re

__all__ = ["asked_predicates"]

_ASKS = {
    "works_at": re.compile(
        r"\bwhere (?:does|did|do|is) \w+(?: \w+)? (?:work|working|employed)\b|\bwho (?:does|did|do) \w+ work for\b"
        r"|\bwhat (?:company|firm|employer)\b|\bwhich (?:company|firm|employer)\b|\b(?:employer|workplace)\b"
        r"|在哪(?:里|儿|个公司|家公司)?(?:工作|上班)|在什么(?:公司|单位)|哪家公司|什么公司",
        re.IGNORECASE,
    ),
    "lives_in": re.compile(
        r"\bwhere (?:does|did|do|is) \w+(?: \w+)? (?:live|living|based)\b|\bwhich city\b|\bwhat city\b"
        r"|住在?哪|在哪(?:里|儿|个城市)?住|住在什么|哪个城市",
        re.IGNORECASE,
    ),
}
# "Does Leo still like jazz?", "小周还喜欢吃火锅吗？": a yes-or-no question of a taste, which
# the liking of the thing it names answers (`engine.recall.facts.answer_factor`).
_TASTE = re.compile(
    r"\b(?:does|do|did)\s+\w+(?:\s+\w+)?\s+(?:still\s+|really\s+)?(?:like|love|enjoy|drink|eat|smoke|play|use|watch)\b"
    r"|\bis\s+\w+(?:\s+\w+)?\s+(?:still\s+)?into\b|(?:喜欢|爱)[^，。？?]{0,12}吗",
    re.IGNORECASE,
)
# "Does Ana have a cat?": what she has, answered by a having of the thing it names.
_HAVING = re.compile(r"\b(?:does|do|did)\s+\w+(?:\s+\w+)?\s+(?:still\s+)?have\s+(?:a|an|any)\b|养[^，。？?]{0,6}吗|有[^，。？?]{0,6}吗", re.IGNORECASE)
# The kind as reflection names it: the English noun's singular, the Chinese words before 是.
_FAVOURITE = re.compile(r"\bfavou?rite (?P<kind>[a-z]+)\b|最喜欢的(?P<zh>[^，。！？,.!?是]{1,6})是", re.IGNORECASE)


def asked_predicates(query: str) -> frozenset[str]:
    """The one-valued predicates a question asks the value of.

    >>> sorted(asked_predicates("Where does Sam work now?")), sorted(asked_predicates("小王在哪家公司上班？"))
    (['works_at'], ['works_at'])
    >>> sorted(asked_predicates("Which city does Sam live in?")), sorted(asked_predicates("小王住在哪里？"))
    (['lives_in'], ['lives_in'])
    >>> sorted(asked_predicates("What is Sam's favorite food?")), sorted(asked_predicates("小王最喜欢的运动是什么？"))
    (['favorite_food'], ['favorite_运动'])
    >>> sorted(asked_predicates("What are Sam's favorite movies?"))
    ['favorite_movie']
    >>> asked_predicates("What did Sam say about work?")
    frozenset()
    >>> sorted(asked_predicates("Does Leo still like jazz?")), sorted(asked_predicates("小周还喜欢吃火锅吗？"))
    (['likes'], ['likes'])
    >>> sorted(asked_predicates("Does Ana have a cat?")), sorted(asked_predicates("小林养狗吗？"))
    (['has'], ['has'])
    """
    asked = {predicate for predicate, pattern in _ASKS.items() if pattern.search(query)}
    if _TASTE.search(query):
        asked.add("likes")
    if _HAVING.search(query):
        asked.add("has")
    for found in _FAVOURITE.finditer(query):
        kind = (found["kind"] or found["zh"]).lower()
        asked.add(f"favorite_{kind[:-1] if kind.endswith('s') and not kind.endswith('ss') else kind}")
    return frozenset(asked)
