"""Importance of an episode, 0..1, from what it carries. Pure; no LLM.

    importance = clamp(base + Σ weight_s · signal_s, 0, 1), or `acknowledgement` for a bare
    "ok" / "thanks" / "好的" / "明白了", and minus `short` for a text of three tokens or fewer.

Signals: entities not seen before in the namespace (up to three count), numbers, dates and
times, decisions, todos, negations and corrections ("actually", "instead", "改成", "不是"),
and a failure (a step that failed, or a tool's output that shows an error).
The weights are settings (`ImportanceWeights`) so they can be tuned per deployment.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from engine.settings.weights import ImportanceWeights
from engine.text import count_tokens, has_negation

__all__ = ["Signals", "is_acknowledgement", "score_importance", "signals_of"]

_ACKNOWLEDGEMENT = re.compile(
    r"^(?:\s*(?:ok(?:ay)?|k|thanks?(?: you)?(?: so much)?|thx|ty|got it|sure|cool|great|nice|"
    r"yes|yep|yeah|no problem|np|sounds good|perfect|alright|will do|noted|lol|haha|"
    r"好的?|嗯+|哦+|明白了?|收到|谢谢(?:你)?|知道了|行|可以|没问题|好嘞|懂了|👍)[\s,.!。，！~]*)+$",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    r"\b(?:actually|correction|instead|not anymore|no longer|i meant|scratch that|rather)\b"
    r"|其实|改成|改为|不再|更正|不是.{0,12}而是|说错了|纠正",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b\d{1,2}:\d{2}\b"
    r"|\b(?:today|tomorrow|yesterday|tonight|next (?:week|month|year)|last (?:week|month|year)"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april"
    r"|may|june|july|august|september|october|november|december|deadline)\b"
    r"|\d{1,4}年|\d{1,2}月|\d{1,2}[日号]|今天|明天|昨天|后天|下周|上周|下个月|周[一二三四五六日]|星期[一二三四五六日天]",
    re.IGNORECASE,
)


class Signals(BaseModel):
    """What an episode carries, counted."""

    new_entities: int = 0
    numbers: int = 0
    decisions: int = 0
    todos: int = 0
    dates: bool = False
    negation: bool = False
    correction: bool = False
    short: bool = False
    acknowledgement: bool = False
    failure: bool = False  # a step of work that failed, or a tool's output showing an error


def is_acknowledgement(text: str) -> bool:
    """A reply that carries nothing to remember.

    >>> is_acknowledgement("ok, thanks!"), is_acknowledgement("好的，明白了"), is_acknowledgement("ok, ship it")
    (True, True, False)
    """
    return _ACKNOWLEDGEMENT.match(text) is not None


def signals_of(
    text: str, *, new_entities: int, numbers: int, decisions: int, todos: int, failure: bool = False
) -> Signals:
    """The signals of a text, given what extraction found in it."""
    return Signals(
        new_entities=new_entities,
        numbers=numbers,
        decisions=decisions,
        todos=todos,
        dates=_DATE.search(text) is not None,
        negation=has_negation(text),
        correction=_CORRECTION.search(text) is not None,
        short=count_tokens(text) <= 3,
        acknowledgement=is_acknowledgement(text),
        failure=failure,
    )


def score_importance(signals: Signals, weights: ImportanceWeights) -> float:
    """Importance from signals.

    >>> from engine.settings.weights import ImportanceWeights
    >>> w = ImportanceWeights()
    >>> score_importance(Signals(acknowledgement=True), w)
    0.05
    >>> score_importance(Signals(decisions=1, numbers=1, new_entities=2), w)
    0.89
    """
    if signals.acknowledgement:
        return weights.acknowledgement
    score = weights.base
    score += weights.new_entity * min(signals.new_entities, 3)
    score += weights.number if signals.numbers else 0.0
    score += weights.decision if signals.decisions else 0.0
    score += weights.todo if signals.todos else 0.0
    score += weights.date if signals.dates else 0.0
    score += weights.negation if signals.negation else 0.0
    score += weights.correction if signals.correction else 0.0
    score += weights.failure if signals.failure else 0.0
    score -= weights.short if signals.short else 0.0
    return round(min(1.0, max(0.0, score)), 3)
