"""The reply channel: the turn that answers a question turn recall ranks high.

"How long have you had them?" matches "How long has Nate had his turtles?" by its words; the
answer, "I've had them for 3 years now", names the turtles only by "them", so no channel finds
it. The next live turn of the question's session joins fusion as a `reply` hit at the
question's fused score.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from engine.models import Episode
from engine.recall.fusion import Scored

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
    live: Callable[[Sequence[str]], list[Episode]], next_turns: Callable[[Sequence[str]], dict[str, str]],
    fused: Mapping[str, float], count: int,
) -> list[Scored]:  # fmt: skip
    """The next live turn after each question among the `count` best fused candidates, at the
    question's fused score; the best question's score where two lead to one turn. The
    candidates are read by `live`, the questions' next turns by `next_turns`
    (`engine.recall.reads`: what the recall has read already is not read again)."""
    if count <= 0 or not fused:
        return []
    best = sorted(fused, key=lambda i: (-fused[i], i))[:count]
    asking = [e.id for e in live(best) if is_question(e.content)]
    replies: dict[str, float] = {}
    for question, reply in next_turns(asking).items():
        if fused[question] > replies.get(reply, 0.0):
            replies[reply] = fused[question]
    return [Scored(id=i, score=s) for i, s in replies.items()]
