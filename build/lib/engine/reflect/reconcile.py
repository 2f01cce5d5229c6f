"""From candidate facts and the active FACT edges to what a reflection run writes. Pure.

    strength   = (1 - e^(-support / scale)) x (floor + (1 - floor) x 0.5^(age_days / half_life))
    confidence = strength x agreement,   agreement = support / (support + contradicting support)

A candidate with the key (subject, predicate, object, polarity) of an active fact reinforces
it (sources united, support and confidence recomputed): never a duplicate. A candidate of
the opposite polarity contradicts it: when the new evidence is newer and at least as strong,
the old edge is closed (`valid_to`, `invalidated_by`) and the new one written at full
agreement; otherwise the new one is written with the agreement penalty. Nothing is deleted.
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

__all__ = ["ActiveFact", "FactPlan", "FactWrite", "reconcile", "strength"]

SECONDS_PER_DAY = 86_400.0


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


class FactPlan(BaseModel):
    writes: list[FactWrite] = Field(default_factory=list)
    closes: list[tuple[str, str]] = Field(default_factory=list)  # (old fact id, new fact id)


def strength(support: int, age_days: float, *, scale: float, half_life: float, floor: float) -> float:
    """How strong the evidence is, before agreement.

    >>> round(strength(1, 0, scale=2, half_life=90, floor=0.5), 3), round(strength(4, 0, scale=2, half_life=90, floor=0.5), 3)
    (0.393, 0.865)
    """
    recency = floor + (1.0 - floor) * math.pow(0.5, max(0.0, age_days) / half_life)
    return (1.0 - math.exp(-support / scale)) * recency


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
    groups: dict[tuple[str, str, str, bool], list[CandidateFact]] = {}
    for fact in candidates:
        groups.setdefault((*fact.key, fact.negated), []).append(fact)
    by_key = {(f.subject_id, f.predicate, f.object_id, f.negated): f for f in active}
    plan = FactPlan()

    def strength_of(support: int, at: float) -> float:
        return strength(support, (now - at) / SECONDS_PER_DAY, scale=scale, half_life=half_life,
                        floor=floor)  # fmt: skip

    for (subject, predicate, obj, negated), facts in sorted(
        groups.items(), key=lambda item: max(f.at for f in item[1])
    ):
        episodes = sorted({f.episode_id for f in facts})
        latest = max(facts, key=lambda f: f.at)
        same = by_key.get((subject, predicate, obj, negated))
        if same is not None:
            sources = sorted(set(same.source_episode_ids) | set(episodes))
            plan.writes.append(
                FactWrite(id=same.id, subject_id=subject, object_id=obj, predicate=predicate,
                          negated=negated, statement=latest.statement,
                          confidence=round(max(same.confidence, strength_of(len(sources), latest.at)), 6),
                          support=len(sources), valid_from=same.valid_from,
                          source_episode_ids=sources, reinforces=True)
            )  # fmt: skip
            continue
        if len(episodes) < min_support and not any(f.explicit for f in facts):
            continue
        new_id = str(uuid.uuid4())
        # Hedged evidence counts less, unless one of the episodes states it plainly.
        new_strength = strength_of(len(episodes), latest.at) * max(f.weight for f in facts)
        confidence = new_strength
        opposite = by_key.get((subject, predicate, obj, not negated))
        if opposite is not None:
            if latest.at >= opposite.valid_from and new_strength >= opposite.confidence:
                plan.closes.append((opposite.id, new_id))
                del by_key[(subject, predicate, obj, not negated)]
            else:
                confidence = new_strength * len(episodes) / (len(episodes) + opposite.support)
        write = FactWrite(
            id=new_id, subject_id=subject, object_id=obj, predicate=predicate, negated=negated,
            statement=latest.statement, confidence=round(confidence, 6), support=len(episodes),
            valid_from=min(f.at for f in facts), source_episode_ids=episodes,
            refers_to=latest.refers_to,
        )  # fmt: skip
        plan.writes.append(write)
        by_key[(subject, predicate, obj, negated)] = ActiveFact(
            id=new_id, subject_id=subject, predicate=predicate, negated=negated, object_id=obj,
            confidence=write.confidence, support=write.support, valid_from=write.valid_from,
            source_episode_ids=episodes,
        )  # fmt: skip
    return plan
