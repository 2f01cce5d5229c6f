"""Cards from working memory: the session's in-process items, ranked by similarity. Pure.

    final = cosine(query, item) x (1 - w_i + w_i x importance)

Working memory is small (a window per session), so every item is compared; items below
`working_min_similarity` are left out, so the scratchpad does not crowd a recall.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.models import ChannelHit, MemoryCard, Trace, from_epoch
from engine.recall.fusion import importance_factor
from engine.settings import Settings
from engine.time_text import named_times
from engine.working import WorkingItem

__all__ = ["working_cards"]


def working_cards(
    query: Sequence[float], items: Sequence[WorkingItem], *, now: float, settings: Settings
) -> list[MemoryCard]:
    """Cards for the working items similar enough to the query, best first."""
    if not items:
        return []
    vector = np.asarray(query, dtype=np.float32)
    scored = []
    for item in items:
        similarity = float(np.dot(vector, np.asarray(item.embedding, dtype=np.float32)))
        if similarity >= settings.working_min_similarity:
            scored.append((similarity, item))
    scored.sort(key=lambda pair: -pair[0])
    cards = []
    for rank, (similarity, item) in enumerate(scored, start=1):
        request = item.request
        occurred = request.occurred_at if request.occurred_at is not None else item.created_at
        final = similarity * importance_factor(item.importance, weight=settings.importance_weight)
        trace = Trace(
            channels=[ChannelHit(channel="working", rank=rank, score=round(similarity, 6))],
            fused=round(similarity, 6),
            decay=1.0,
            age_days=round(max(0.0, now - occurred) / 86_400.0, 3),
            importance=item.importance,
            final=round(final, 6),
        )
        cards.append(
            MemoryCard(
                id=item.id,
                namespace=request.namespace,
                content=request.content,
                score=trace.final,
                occurred_at=from_epoch(occurred),
                created_at=from_epoch(item.created_at),
                session_id=request.session_id,
                role=request.role,
                kind=request.kind,
                layer="working",
                importance=item.importance,
                entities=[],
                related_ids=list(request.related_ids),
                metadata=request.metadata,
                trace=trace,
                times=named_times(request.content, occurred),
            )
        )
    return cards
