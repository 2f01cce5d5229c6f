"""The reply channel: the turn that answers a question turn recall ranks high.

"How long have you had them?" matches "How long has Nate had his turtles?" by its words; the
answer, "I've had them for 3 years now", names the turtles only by "them", so no channel finds
it. The next live turn of the question's session joins fusion as a `reply` hit at the
question's fused score.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engine.recall.fusion import Scored
from engine.stores.base import RecallGraph

__all__ = ["is_question", "reply_channel"]

# What a chat appends to a turn: "[image: a photo of ...]" says nothing of whether it asks.
_TRAILING_NOTES = re.compile(r"(?:\s*\[[^\]]*\])+\s*$")


# A Chinese question often ends in its particle with no mark at all: "你养了很久了吗".
_ZH_PARTICLES = ("吗", "么", "呢")
_ZH_CLOSING = "。.!！~～… "


def is_question(text: str) -> bool:
    """Whether a turn ends by asking, in English or Chinese.

    >>> is_question("Awww! How long have you had them?"), is_question("你养了多久？ [image: 乌龟]")
    (True, True)
    >>> is_question("你养它们很久了吗"), is_question("真可爱，你养了很久了吗。")
    (True, True)
    >>> is_question("I've had them for 3 years now."), is_question("Why? Because I can.")
    (False, False)
    """
    ending = _TRAILING_NOTES.sub("", text).rstrip()
    return ending.endswith(("?", "？")) or ending.rstrip(_ZH_CLOSING).endswith(_ZH_PARTICLES)


def reply_channel(
    graph: RecallGraph, namespace: str, fused: Mapping[str, float], count: int, now: float
) -> list[Scored]:
    """The next live turn after each question among the `count` best fused candidates, at the
    question's fused score; the best question's score where two lead to one turn. The
    candidates are read from the episode cache; the graph is asked only for the questions'
    next turns."""
    if count <= 0 or not fused:
        return []
    best = sorted(fused, key=lambda i: (-fused[i], i))[:count]
    asking = [e.id for e in graph.live_episodes(namespace, best, now) if is_question(e.content)]
    replies: dict[str, float] = {}
    for question, reply in graph.next_turns(namespace, asking).items():
        if fused[question] > replies.get(reply, 0.0):
            replies[reply] = fused[question]
    return [Scored(id=i, score=s) for i, s in replies.items()]
