"""Cards of semantic memory: the active facts about the entities a query names.

    final = confidence x fact_card_weight

A fact card cites the episodes it was drawn from (`related_ids`) and its trace shows the
FACT edge as the path. Its id is the fact's id, not an episode's.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.models import ChannelHit, Entity, GraphPath, MemoryCard, PathNode, Trace, from_epoch
from engine.settings import Settings
from engine.views import Fact

__all__ = ["fact_cards"]

SECONDS_PER_DAY = 86_400.0


def fact_cards(
    facts: Sequence[Fact], about: Sequence[Entity], *, namespace: str, now: float, settings: Settings
) -> list[MemoryCard]:
    """One card per active fact, most confident first."""
    names = {e.id for e in about}
    ordered = sorted(facts, key=lambda f: -f.confidence)
    cards = []
    for rank, fact in enumerate(ordered, start=1):
        if fact.valid_to is not None or not ({fact.subject_id, fact.object_id} & names):
            continue
        final = fact.confidence * settings.fact_card_weight
        trace = Trace(
            channels=[ChannelHit(channel="fact", rank=rank, score=round(fact.confidence, 6))],
            path=GraphPath(
                nodes=[
                    PathNode(id=fact.subject_id, label="Entity", name=fact.subject),
                    PathNode(id=fact.object_id, label="Entity", name=fact.object),
                ],
                relationships=["FACT"],
            ),
            fused=round(fact.confidence, 6),
            decay=1.0,
            age_days=round(max(0.0, now - fact.valid_from) / SECONDS_PER_DAY, 3),
            importance=fact.confidence,
            final=round(final, 6),
        )
        cards.append(
            MemoryCard(
                id=fact.id,
                namespace=namespace,
                content=fact.statement,
                score=trace.final,
                occurred_at=from_epoch(fact.valid_from),
                created_at=from_epoch(fact.valid_from),
                session_id=None,
                role=None,
                kind="observation",
                layer="semantic",
                importance=fact.confidence,
                entities=[fact.subject, fact.object],
                related_ids=list(fact.source_episode_ids),
                metadata={
                    "predicate": fact.predicate,
                    "negated": fact.negated,
                    "subject": fact.subject,
                    "object": fact.object,
                    "support": fact.support,
                    "refers_to": from_epoch(fact.refers_to).isoformat() if fact.refers_to else None,
                },
                trace=trace,
            )
        )
    return cards
