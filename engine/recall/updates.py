"""Knowledge updates among recalled cards: the current value above the one it replaced. Pure.

"The launch is set for November 20", then weeks later "the launch moved to November 27": both
answer "when is the launch?", and the older one often matches the question better. When a
newer card states a change (moved to, postponed, no longer, 改到, 推迟) and shares an entity or
enough words with an older card above it, it takes the older card's score (ties go to the newer
card) and both traces say so: `supersedes` on the newer, `superseded_by` on the older.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from engine.models import MemoryCard
from engine.recall.memo import EpisodeMemo
from engine.text import tokenize

__all__ = ["episode_states_a_change", "mark_replaced_by_facts", "mark_updates", "states_a_change"]

_CHANGE = re.compile(
    r"\b(?:moved|changed|switched|rescheduled|postponed|pushed|delayed|updated|shifted|bumped"
    r"|reset|raised|lowered|cut|increased|reduced)\s+(?:back\s+|up\s+|out\s+)?(?:to|until|from)\b"
    r"|\bno longer\b|\binstead\b|\bnot\s+\w+\s+any\s?more\b|\b(?:cancel(?:l)?ed|called off)\b"
    r"|\bis now\b|\bnow (?:set|scheduled|planned|on|at|in)\b"
    r"|\b(?:rebooked|rescheduled|migrated|upgraded|swapped|replaced)\b|\b(?:took|taken)\s+over\b"
    r"|\b(?:gave\s+up|given\s+up|quit|cut\s+out|no\s+more)\b|\bhaven't\s+had\b.*\b(?:weeks?|months?|years?)\b"
    r"|改到|改成|改为|改在|改签|改期|推迟|推到|挪到|顺延|延后|延期|提前到|提前至|换成|换到|不再|取消了|调整为|变成了",
    re.IGNORECASE,
)
_MIN_SHARED_WORDS = 2  # two topic words in common ("launch", "Rotterdam"), or one entity
_SHORT_UPDATE_WORDS = 4  # or one, for an update of at most this many words ("the concert was cancelled")


def states_a_change(text: str) -> bool:
    """Whether a text reports that something changed.

    >>> states_a_change("Actually, the launch moved to November 27"), states_a_change("发布会推迟到下周")
    (True, True)
    >>> states_a_change("The launch is set for November 20"), states_a_change("航空公司把我的航班改签到了3月16日")
    (False, True)
    >>> states_a_change("Priya took over the design team from Dana"), states_a_change("We migrated Atlas to MySQL")
    (True, True)
    >>> states_a_change("I haven't had coffee in a month"), states_a_change("I gave up golf")
    (True, True)
    """
    return _CHANGE.search(text) is not None


_CHANGES: EpisodeMemo[bool] = EpisodeMemo(states_a_change)  # once per episode


def episode_states_a_change(episode_id: str, content: str) -> bool:
    """`states_a_change` of an episode, read once per episode (`engine.recall.memo`)."""
    return _CHANGES(episode_id, content)


# Someone else's thing: "my sister's flight got changed" updates her flight, not the speaker's.
_ANOTHERS = re.compile(
    r"\b(?:my|our)\s+(?:sister|brother|mom|mum|mother|dad|father|wife|husband|son|daughter|friend|boss"
    r"|colleague|partner|parents|kid|kids|neighbou?r|roommate)(?:'s|’s|s')"
    r"|我(?:的)?(?:妹妹|姐姐|哥哥|弟弟|妈妈|爸爸|老婆|老公|妻子|丈夫|儿子|女儿|朋友|同事|老板|父母|孩子|室友)的?",
    re.IGNORECASE,
)


def _same_topic(newer: MemoryCard, older: MemoryCard) -> bool:
    if bool(_ANOTHERS.search(newer.content)) != bool(_ANOTHERS.search(older.content)):
        return False  # one is about another person's
    if {e.casefold() for e in newer.entities} & {e.casefold() for e in older.entities}:
        return True
    words = set(tokenize(newer.content))
    shared = words & set(tokenize(older.content))
    # "Bad news, the concert was cancelled": a short update names its topic once
    return len(shared) >= _MIN_SHARED_WORDS or (bool(shared) and len(words) <= _SHORT_UPDATE_WORDS)


def mark_updates(cards: Sequence[MemoryCard]) -> list[MemoryCard]:
    """The cards with each update raised to the best card it replaces, and both traces marked.

    Only episodic cards take part; the order of the input does not matter.
    """
    raised: dict[str, float] = {}
    supersedes: dict[str, list[str]] = {}
    superseded_by: dict[str, str] = {}
    episodic = [c for c in cards if c.layer != "semantic" and c.trace is not None]
    for newer in sorted(episodic, key=lambda c: c.occurred_at):
        if not episode_states_a_change(newer.id, newer.content):
            continue
        older = [
            c for c in episodic
            if c.occurred_at < newer.occurred_at and c.id not in superseded_by
            and c.score > raised.get(newer.id, newer.score) and _same_topic(newer, c)
        ]  # fmt: skip
        if not older:
            continue
        best = max(older, key=lambda c: c.score)
        raised[newer.id] = best.score
        supersedes[newer.id] = [c.id for c in older]
        for card in older:
            superseded_by[card.id] = newer.id
    return _marked(cards, raised, supersedes, superseded_by)


def mark_replaced_by_facts(cards: Sequence[MemoryCard], replaced: Mapping[str, Sequence[str]]) -> list[MemoryCard]:
    """The cards with each fact card whose fact closed another (`replaced`: fact card id ->
    the episodes that stated the closed fact) raised to the best of those episodes' cards,
    and both traces marked, as `mark_updates` marks an episode that states a change.
    """
    raised: dict[str, float] = {}
    supersedes: dict[str, list[str]] = {}
    superseded_by: dict[str, str] = {}
    shown = {c.id: c for c in cards if c.layer != "semantic" and c.trace is not None}
    for fact in (c for c in cards if c.layer == "semantic" and c.trace is not None and replaced.get(c.id)):
        older = [shown[i] for i in replaced[fact.id]
                 if i in shown and i not in superseded_by and shown[i].score > fact.score]  # fmt: skip
        if older:
            raised[fact.id] = max(c.score for c in older)
            supersedes[fact.id] = [c.id for c in older]
            superseded_by.update((c.id, fact.id) for c in older)
    return _marked(cards, raised, supersedes, superseded_by)


def _marked(
    cards: Sequence[MemoryCard], raised: Mapping[str, float], supersedes: Mapping[str, list[str]],
    superseded_by: Mapping[str, str],
) -> list[MemoryCard]:  # fmt: skip
    """The cards with the updates' scores raised and both sides' traces marked."""
    if not supersedes:
        return list(cards)
    updated = []
    for card in cards:
        trace = card.trace
        if trace is not None and (card.id in supersedes or card.id in superseded_by):
            trace = trace.model_copy(update={
                "supersedes": supersedes.get(card.id, []),
                "superseded_by": superseded_by.get(card.id),
                "final": raised.get(card.id, trace.final),
            })  # fmt: skip
        updated.append(card.model_copy(update={"score": raised.get(card.id, card.score), "trace": trace}))
    return updated
