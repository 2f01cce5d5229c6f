"""From candidate facts and the active FACT edges to what a reflection run writes. Pure.

    strength   = (1 - e^(-support / scale)) x (floor + (1 - floor) x 0.5^(age_days / half_life))
    confidence = strength x agreement,   agreement = support / (support + contradicting support)

A candidate with the key (subject, predicate, object, polarity) of an active fact reinforces
it (sources united, support and confidence recomputed): never a duplicate, but for an event
whose time is another than the fact's (`another_event`): a second parade is a second fact. A candidate of
the opposite polarity contradicts it: when the new evidence is newer and at least as strong,
the old edge is closed (`valid_to`, `invalidated_by`) and the new one written at full
agreement; otherwise the new one is written with the agreement penalty. Nothing is deleted.

A person's facts change, and the newer statement closes the older fact (its `valid_to` is
the newer statement's time, never the run's):
- a functional predicate (`FUNCTIONAL`: where one works, lives, a favourite of a kind) holds
  one value: a newer value closes the older one, however often the older was said; a role
  only ever stated with the old job ("at Google as a data engineer") closes with it;
- a reversal closes the positive fact it reverses on the same object, matched by the
  object's words ("don't like jazz anymore" closes "likes jazz music"): the negated
  predicate, its opposite ("dislikes" against "likes") or an ending ("left Stripe" against
  "works_at Stripe"), when the reversal is newer and at least as strong.
Relations seen in fewer than `min_support` episodes are not facts yet, unless explicit (a
statement, a decision, a fix): those are kept from one episode, at the lower confidence one
episode gives. A hedged statement's strength is halved (`weight`).
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence

from pydantic import BaseModel, Field

from engine.reflect.derive import CandidateFact
from engine.reflect.vocabulary import ENDS
from engine.reflect.word_lists import WordLists
from engine.text import canonical_name, has_cjk, tokenize

_WORDS = WordLists("reconcile")

__all__ = [
    "FUNCTIONAL", "STATES", "ActiveFact", "FactClose", "FactPlan", "FactWrite", "another_event",
    "reconcile", "strength",
]  # fmt: skip

SECONDS_PER_DAY = 86_400.0
FUNCTIONAL = _WORDS("functional")
_FUNCTIONAL_PREFIX = "favorite_"
_ROLES_WITH = _WORDS("roles_with")
STATES = _WORDS("states")
_SAME_EVENT_SECONDS = 7 * SECONDS_PER_DAY  # times named this far apart are two events


class ActiveFact(BaseModel):
    id: str
    subject_id: str
    predicate: str
    negated: bool
    object_id: str
    confidence: float
    support: int
    valid_from: float
    source_episode_ids: list[str]
    object_words: frozenset[str] = frozenset()  # the object's canonical words
    refers_to: float | None = None  # the time the statement names, if any


class FactWrite(BaseModel):
    """A FACT edge to create, or (when `reinforces`) the new state of an existing one."""

    id: str
    subject_id: str
    object_id: str
    predicate: str
    negated: bool
    statement: str
    confidence: float
    support: int
    valid_from: float
    source_episode_ids: list[str]
    refers_to: float | None = None
    reinforces: bool = False
    rule: str | None = None


class FactClose(BaseModel):
    old: str
    new: str
    at: float  # when the newer statement was made: the old fact's `valid_to`


class FactPlan(BaseModel):
    writes: list[FactWrite] = Field(default_factory=list)
    closes: list[FactClose] = Field(default_factory=list)


def is_functional(predicate: str) -> bool:
    """Whether a predicate holds one current value per subject.

    >>> is_functional("works_at"), is_functional("favorite_food"), is_functional("likes")
    (True, True, False)
    """
    return predicate in FUNCTIONAL or predicate.startswith(_FUNCTIONAL_PREFIX)


# Words that name a kind, not a narrower thing: "cold brew coffee" is still cold brew.
_KIND_WORDS = frozenset(tokenize(
    "music food movies films shows games sports drinks books series genre coffee tea"
))


def same_thing(old: frozenset[str], new: frozenset[str]) -> bool:
    """Whether what a newer statement reverses (`new`) covers an older object (`old`): its
    words are all among the older's, or what it adds names only the kind. A narrower thing
    ("I don't like smooth jazz") leaves the liking of the whole ("jazz") standing.

    >>> same_thing(frozenset({"jazz", "music"}), frozenset({"jazz"}))
    True
    >>> same_thing(frozenset({"jazz"}), frozenset({"smooth", "jazz"})), same_thing(frozenset({"jazz"}), frozenset({"jazz", "music"}))
    (False, True)
    >>> same_thing(frozenset({"jazz"}), frozenset({"rock", "music"})), same_thing(frozenset(), frozenset({"jazz"}))
    (False, False)
    """
    return bool(old and new) and (new <= old or (old < new and new - old <= _KIND_WORDS))


def _reversed_by(old: ActiveFact, new: CandidateFact, words: frozenset[str]) -> bool:
    """Whether the new evidence reverses an active fact of the same subject and object: the
    same predicate of the other polarity, or a positive one that ends it."""
    if old.subject_id != new.subject.id:
        return False
    if old.object_id != new.object.id and not same_thing(old.object_words, words):
        return False
    if old.predicate == new.predicate:
        return old.negated != new.negated
    return not old.negated and not new.negated and old.predicate in ENDS.get(new.predicate, ())


def another_event(predicate: str, before: float | None, now: float | None) -> bool:
    """Whether a statement of an event tells of another one than the fact already kept: a
    parade attended in June and one in August are two facts, each with its own time and
    sentence. States (`STATES`: likes, works_at ...) are one fact however often told.

    >>> week = 7 * 86_400
    >>> another_event("attended", 0.0, 2 * week), another_event("attended", 0.0, 86_400)
    (True, False)
    >>> another_event("likes", 0.0, 2 * week), another_event("attended", None, 2 * week)
    (False, False)
    """
    if before is None or now is None or is_functional(predicate) or predicate in STATES:
        return False
    return abs(now - before) > _SAME_EVENT_SECONDS


def _by_event(
    groups: dict[tuple[str, str, str, bool, int], list[CandidateFact]],
) -> dict[tuple[str, str, str, bool, int], list[CandidateFact]]:
    """Each group of an event's statements split where the times they name are apart
    (`another_event`); a statement that names no time stays with the first."""
    split: dict[tuple[str, str, str, bool, int], list[CandidateFact]] = {}
    for (subject, predicate, obj, negated, _), facts in groups.items():
        slot, last = 0, None
        for fact in sorted(facts, key=lambda f: (f.refers_to is not None, f.refers_to or 0.0)):
            if fact.refers_to is not None and last is not None and another_event(predicate, last, fact.refers_to):
                slot += 1
            last = fact.refers_to if fact.refers_to is not None else last
            split.setdefault((subject, predicate, obj, negated, slot), []).append(fact)
    return split


def _stated_with(role: ActiveFact, job: ActiveFact) -> bool:
    """Whether a role was only ever stated with a job ("I work at Google as a data engineer"):
    it ends with the job, since nothing says it goes on at the next one."""
    return (role.predicate == "is" and not role.negated and role.subject_id == job.subject_id
            and set(role.source_episode_ids) <= set(job.source_episode_ids))  # fmt: skip


def _ended(
    by_key: dict[tuple[str, str, str, bool], ActiveFact], facts: list[CandidateFact], latest: CandidateFact,
    new_strength: float, words: frozenset[str], new_id: str,
) -> list[FactClose]:  # fmt: skip
    """The active facts the new one ends (taken out of `by_key`): an older value of its slot,
    the reverse of it, and the roles stated with a workplace it replaces."""
    closes = []
    for key, old in list(by_key.items()):
        newer = latest.at >= old.valid_from
        replaced = newer and _replaced_by(old, latest)
        # A person's own plain word that it has changed ends it, however often the old
        # value was said; another's word, a hedged one or one about a thing must outweigh it.
        plain = any(f.own and f.weight >= 1.0 for f in facts)
        reversed_ = newer and (plain or new_strength >= old.confidence) and _reversed_by(old, latest, words)
        if replaced or reversed_:
            closes.append(FactClose(old=old.id, new=new_id, at=latest.at))
            del by_key[key]
        if replaced and old.predicate in _ROLES_WITH:
            for role_key, role in list(by_key.items()):
                if _stated_with(role, old):
                    closes.append(FactClose(old=role.id, new=new_id, at=latest.at))
                    del by_key[role_key]
    return closes


def _replaced_by(old: ActiveFact, new: CandidateFact) -> bool:
    """Whether a new value of a functional predicate replaces an active one. Two values one
    episode states are siblings, not a change ("my favourite sports are tennis and rugby")."""
    return (not new.negated and not old.negated and is_functional(new.predicate)
            and old.subject_id == new.subject.id and old.predicate == new.predicate
            and old.object_id != new.object.id and new.episode_id not in old.source_episode_ids)  # fmt: skip


# A Chinese verb that begins a verb-object word ("喝酒", "吃辣"): the object is the rest.
_VERB_FIRST = frozenset("喝吃抽玩看打踢听弹学")


def object_words(name: str) -> frozenset[str]:
    """The words an object is matched by, in a reversal (`same_thing`). A Chinese phrase
    ends in its head ("喝咖啡" is coffee drunk): its endings of two characters or more.

    >>> sorted(object_words("Cold Brew")), sorted(object_words("swimming")), sorted(object_words("喝咖啡"))
    (['brew', 'cold'], ['swim'], ['咖啡', '喝咖啡'])
    >>> same_thing(object_words("喝咖啡"), object_words("咖啡")), same_thing(object_words("咖啡馆"), object_words("咖啡"))
    (True, False)
    >>> same_thing(object_words("喝酒"), object_words("酒"))
    True
    """
    canonical = canonical_name(name)
    if has_cjk(canonical) and " " not in canonical:
        endings = {canonical[start:] for start in range(len(canonical) - 1)} or {canonical}
        if len(canonical) > 1 and canonical[0] in _VERB_FIRST:
            endings.add(canonical[1:])  # "喝酒" is 酒 drunk
        return frozenset(endings)
    return frozenset(tokenize(canonical)) or frozenset(canonical.split())  # stems: "swimming" is "swim"


def strength(support: int, age_days: float, *, scale: float, half_life: float, floor: float) -> float:
    """How strong the evidence is, before agreement.

    >>> round(strength(1, 0, scale=2, half_life=90, floor=0.5), 3), round(strength(4, 0, scale=2, half_life=90, floor=0.5), 3)
    (0.393, 0.865)
    """
    recency = floor + (1.0 - floor) * math.pow(0.5, max(0.0, age_days) / half_life)
    return support_share(support, scale) * recency


def support_share(support: int, scale: float) -> float:
    """What `support` agreeing episodes give a fact's strength, 0..1 (`scale` is
    `fact_support_scale`)."""
    return 1.0 - math.exp(-support / scale)


def reconcile(
    candidates: Sequence[CandidateFact],
    active: Sequence[ActiveFact],
    *,
    now: float,
    min_support: int,
    scale: float,
    half_life: float,
    floor: float,
) -> FactPlan:
    """What to write and what to close. Groups are taken oldest evidence first."""
    groups: dict[tuple[str, str, str, bool, int], list[CandidateFact]] = {}
    for fact in candidates:
        groups.setdefault((*fact.key, fact.negated, 0), []).append(fact)
    groups = _by_event(groups)
    by_key = {(f.subject_id, f.predicate, f.object_id, f.negated): f for f in active}
    plan = FactPlan()

    def strength_of(support: int, at: float) -> float:
        # Rounded as stored confidences are: compared with them, an unrounded strength would
        # flip with the wall clock in its seventh decimal (two statements a minute apart).
        return round(strength(support, (now - at) / SECONDS_PER_DAY, scale=scale, half_life=half_life,
                              floor=floor), 6)  # fmt: skip

    for (subject, predicate, obj, negated, _), facts in sorted(
        groups.items(), key=lambda item: max(f.at for f in item[1])
    ):
        episodes = sorted({f.episode_id for f in facts})
        latest = max(facts, key=lambda f: f.at)
        same = by_key.get((subject, predicate, obj, negated))
        if same is not None and not another_event(same.predicate, same.refers_to, latest.refers_to):
            sources = sorted(set(same.source_episode_ids) | set(episodes))
            plan.writes.append(
                FactWrite(id=same.id, subject_id=subject, object_id=obj, predicate=predicate,
                          negated=negated, statement=latest.statement,
                          confidence=round(max(same.confidence, strength_of(len(sources), latest.at)), 6),
                          support=len(sources), valid_from=same.valid_from,
                          source_episode_ids=sources, reinforces=True, rule=latest.rule)
            )  # fmt: skip
            continue
        if len(episodes) < min_support and not any(f.explicit for f in facts):
            continue
        new_id = str(uuid.uuid4())
        # Hedged evidence counts less, unless one of the episodes states it plainly.
        new_strength = strength_of(len(episodes), latest.at) * max(f.weight for f in facts)
        confidence = new_strength
        opposite = by_key.get((subject, predicate, obj, not negated))
        if opposite is not None and (latest.at < opposite.valid_from or new_strength < opposite.confidence):
            confidence = new_strength * len(episodes) / (len(episodes) + opposite.support)
        words = object_words(latest.object.canonical or latest.object.name)
        plan.closes += _ended(by_key, facts, latest, new_strength, words, new_id)
        write = FactWrite(
            id=new_id, subject_id=subject, object_id=obj, predicate=predicate, negated=negated,
            statement=latest.statement, confidence=round(confidence, 6), support=len(episodes),
            valid_from=min(f.at for f in facts), source_episode_ids=episodes,
            refers_to=latest.refers_to, rule=latest.rule,
        )  # fmt: skip
        plan.writes.append(write)
        by_key[(subject, predicate, obj, negated)] = ActiveFact(
            id=new_id, subject_id=subject, predicate=predicate, negated=negated, object_id=obj,
            confidence=write.confidence, support=write.support, valid_from=write.valid_from,
            source_episode_ids=episodes, object_words=words, refers_to=write.refers_to,
        )  # fmt: skip
    return plan
