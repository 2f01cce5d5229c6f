"""Facts once episodes they were drawn from are purged or forgotten: what such an episode said
leaves the semantic layer with it. Pure: `without_sources` and `with_forgotten` decide,
`engine/lifecycle/forget.py` reads and writes.

Purged: a fact no other episode supports is removed (and a fact it had closed is current
again: what closed it was never said). A fact others support stands on them: its support,
first time and confidence are theirs, and it keeps its statement only where one of them holds
that sentence; otherwise the relation stands alone, with no statement and no time named.

Forgotten (restorable): the fact keeps every source and lists the forgotten ones
(`Fact.forgotten_ids`), and whether its statement is theirs alone (`quote_forgotten`); it is
shown standing on the others (`Fact.shown`), or not at all while they are none.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from pydantic import BaseModel, Field

from engine.models import Episode
from engine.reflect.reconcile import support_share
from engine.views import LESSON_RULES, Fact

__all__ = ["FactRevision", "with_forgotten", "without_sources"]


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
        forgotten = [i for i in fact.forgotten_ids if i in kept]
        plan.revised.append(fact.model_copy(update={
            "source_episode_ids": kept,
            "support": len(kept),
            "statement": fact.statement if still_said else "",
            "refers_to": fact.refers_to if still_said else None,
            "forgotten_ids": forgotten,
            "quote_forgotten": still_said and not _held(statement, [e for e in left if e.id not in forgotten]),
            "valid_from": min(e.occurred_at for e in left) if left else fact.valid_from,
            "confidence": round(fact.confidence * support_share(len(kept), scale)
                                / support_share(max(fact.support, len(kept)), scale), 6),
        }))  # fmt: skip
    return plan


def with_forgotten(facts: Sequence[Fact], sources: Mapping[str, Episode]) -> list[Fact]:
    """The facts whose forgotten sources change, with them: `sources` holds the episodes the
    facts cite as they are now (a forgotten one has `deleted_at`; one not there counts as
    not forgotten and not holding the statement).

    >>> from engine.models import Episode
    >>> said = lambda i, text, gone=None: Episode(id=i, namespace="n", content=text, kind="message",
    ...     layer="episodic", importance=0.5, created_at=1, occurred_at=1, deleted_at=gone)
    >>> fact = Fact(id="f", subject="Sam", predicate="works_at", object="Google", support=2,
    ...             statement="I work at Google.", confidence=0.5, valid_from=1, source_episode_ids=["a", "b"])
    >>> [(f.forgotten_ids, f.quote_forgotten) for f in
    ...  with_forgotten([fact], {"a": said("a", "Sam: I work at Google.", 5), "b": said("b", "Google pays well")})]
    [(['a'], True)]
    >>> with_forgotten([fact], {"a": said("a", "I work at Google."), "b": said("b", "Google pays well")})
    []
    """
    changed = []
    for fact in facts:
        forgotten = [i for i in fact.source_episode_ids if (e := sources.get(i)) is not None and e.deleted_at is not None]
        shown = [e for i in fact.source_episode_ids if i not in forgotten and (e := sources.get(i)) is not None]
        # A lesson's sentence is built, not quoted: what only its forgotten sources hold is its fix.
        said = fact.object if fact.rule in LESSON_RULES else fact.statement
        quote = bool(forgotten) and not _held(said.strip(), shown)
        if forgotten != fact.forgotten_ids or quote != fact.quote_forgotten:
            changed.append(fact.model_copy(update={"forgotten_ids": forgotten, "quote_forgotten": quote}))
    return changed


def _held(statement: str, episodes: Sequence[Episode]) -> bool:
    """Whether one of the episodes holds the statement (an empty one is held: nothing to hide)."""
    return not statement or any(statement in e.content for e in episodes)
