"""Importance of an episode, 0..1, from what it carries. Pure; no LLM.

First cut: the ingest issue refines the signals and adds the low-importance threshold.
"""

from __future__ import annotations

import re

__all__ = ["score_importance"]

_ACKNOWLEDGEMENT = re.compile(
    r"^(?:\s*(?:ok(?:ay)?|thanks?(?: you)?|thx|got it|sure|cool|great|nice|yes|yep|no problem|"
    r"好的?|嗯+|明白了?|收到|谢谢|知道了|行)[\s,.!。，！~]*)+$",
    re.IGNORECASE,
)
_CORRECTION = re.compile(r"\b(actually|correction|instead|not anymore|no longer)\b|其实|改成|不再|更正")


def score_importance(
    text: str,
    *,
    entities: int,
    decisions: int,
    numbers: int,
    todos: int,
    base: float,
) -> float:
    """importance = clamp(base + 0.2·[decision] + 0.1·[todo] + 0.1·[correction]
    + 0.05·min(entities, 3) + 0.05·[number], 0, 1); an acknowledgement alone scores 0.1.

    >>> score_importance("ok thanks", entities=0, decisions=0, numbers=0, todos=0, base=0.5)
    0.1
    """
    if _ACKNOWLEDGEMENT.match(text):
        return 0.1
    score = base
    score += 0.2 if decisions else 0.0
    score += 0.1 if todos else 0.0
    score += 0.1 if _CORRECTION.search(text) else 0.0
    score += 0.05 * min(entities, 3)
    score += 0.05 if numbers else 0.0
    return round(min(1.0, max(0.0, score)), 3)
