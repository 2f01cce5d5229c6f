"""Facts once episodes they were drawn from are purged: what a purged episode said leaves the
semantic layer with it. Pure: `without_sources` decides, `engine/lifecycle/forget.py` reads
and writes.

A fact no other episode supports is removed (and a fact it had closed is current again: what
closed it was never said). A fact others support stands on them: its support, first time and
confidence are theirs, and it keeps its statement only where one of them holds that sentence;
otherwise the relation stands alone, with no statement and no time named.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from pydantic import BaseModel, Field

from engine.models import Episode
from engine.reflect.reconcile import support_share
from engine.views import Fact

__all__ = ["FactRevision", "without_sources"]


class FactRevision(BaseModel):
    """What becomes of the facts that cite purged episodes."""

    removed: list[str] = Field(default_factory=list)  # fact ids no other episode supports
    revised: list[Fact] = Field(default_factory=list)  # facts standing on the episodes left


def without_sources(
    facts: Sequence[Fact], gone: Collection[str], remaining: Mapping[str, Episode], *, scale: float
) -> FactRevision:
    """Each fact citing an episode of `gone`, without it. `remaining` holds the episodes left
    (by id) that the facts cite; `scale` is `fact_support_scale`, by which support turns into
    confidence.

    >>> from engine.models import Episode
    >>> said = lambda i, text, at: Episode(id=i, namespace="n", content=text, kind="message",
    ...                                    layer="episodic", importance=0.5, created_at=at, occurred_at=at)
    >>> fact = Fact(id="f", subject="Sam", predicate="works_at", object="Google", support=2,
    ...             statement="I work at Google now.", confidence=0.5, valid_from=10,
    ...             source_episode_ids=["a", "b"])
    >>> alone = Fact(id="g", subject="Sam", predicate="likes", object="jazz", support=1,
    ...              statement="I love jazz.", confidence=0.3, valid_from=10, source_episode_ids=["a"])
    >>> plan = without_sources([fact, alone], {"a"}, {"b": said("b", "Sam: Google pays well.", 20)}, scale=2)
    >>> plan.removed, [(f.support, f.statement, f.valid_from, f.confidence) for f in plan.revised]
    (['g'], [(1, '', 20.0, 0.31123)])
    """
    plan = FactRevision()
    for fact in facts:
        kept = [i for i in fact.source_episode_ids if i not in gone]
        if len(kept) == len(fact.source_episode_ids):
            continue
        if not kept:
            plan.removed.append(fact.id)
            continue
        left = [remaining[i] for i in kept if i in remaining]
        statement = fact.statement.strip()
        still_said = bool(statement) and any(statement in e.content for e in left)
        plan.revised.append(fact.model_copy(update={
            "source_episode_ids": kept,
            "support": len(kept),
            "statement": fact.statement if still_said else "",
            "refers_to": fact.refers_to if still_said else None,
            "valid_from": min(e.occurred_at for e in left) if left else fact.valid_from,
            "confidence": round(fact.confidence * support_share(len(kept), scale)
                                / support_share(max(fact.support, len(kept)), scale), 6),
        }))  # fmt: skip
    return plan
