"""Knowledge updates among recalled cards: the current value above the one it replaced. Pure.

"The launch is set for November 20", then weeks later "the launch moved to November 27": both
answer "when is the launch?", and the older one often matches the question better. When a
newer card states a change (a rule of `engine/rules/updates.toml`: moved to, postponed, no
longer, 改到, 推迟) and an older card above it speaks of the change's slot (the thing that
changed: "launch"), the newer takes the older card's score (ties go to the newer card) and
both traces say so: `supersedes` on the newer, `superseded_by` on the older. Words shared
elsewhere in the two texts replace nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from engine.models import MemoryCard
from engine.recall.memo import EpisodeMemo
from engine.recall.update_rules import Change, cue_of, mentions_anothers, read_change
from engine.text import tokenize

__all__ = ["episode_states_a_change", "mark_replaced_by_facts", "mark_updates", "states_a_change"]


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
    return cue_of(text) is not None


_CHANGES: EpisodeMemo[bool] = EpisodeMemo(states_a_change)  # once per episode
_SLOTS: EpisodeMemo[Change | None] = EpisodeMemo(read_change)
_WORDS: EpisodeMemo[frozenset[str]] = EpisodeMemo(lambda text: frozenset(tokenize(text)))


def episode_states_a_change(episode_id: str, content: str) -> bool:
    """`states_a_change` of an episode, read once per episode (`engine.recall.memo`)."""
    return _CHANGES(episode_id, content)


def _same_slot(change: Change, older: MemoryCard) -> bool:
    """Whether `older` speaks of the slot `change` changed, and of the same person's thing."""
    if change.anothers != mentions_anothers(older.content):
        return False  # one is about another person's
    return bool(change.slot_words & _WORDS(older.id, older.content))


def mark_updates(cards: Sequence[MemoryCard], liftable: Collection[str] | None = None) -> list[MemoryCard]:
    """The cards with each update raised to the best card it replaces, and both traces marked.

    Only episodic cards take part, and only those of `liftable` (every card when None) may
    replace others: recall names the best few, however many cards were asked for, so that
    the first cards do not depend on how many follow. The order of the input does not matter.
    """
    raised: dict[str, float] = {}
    supersedes: dict[str, list[str]] = {}
    superseded_by: dict[str, str] = {}
    episodic = [c for c in cards if c.layer != "semantic" and c.trace is not None]
    for newer in sorted(episodic, key=lambda c: c.occurred_at):
        if liftable is not None and newer.id not in liftable:
            continue
        if not episode_states_a_change(newer.id, newer.content):
            continue
        change = _SLOTS(newer.id, newer.content)
        if change is None or not change.slot:
            continue
        older = [
            c for c in episodic
            if c.occurred_at < newer.occurred_at and c.id not in superseded_by
            and c.score > raised.get(newer.id, newer.score) and _same_slot(change, c)
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
