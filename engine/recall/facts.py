"""Cards of semantic memory: the active facts that answer the question.

Three sources, fused as the episodes' channels are (`engine.recall.fusion`): the fact points
nearest the question's embedding and its keywords (`engine/fact_points.py`), and the facts
about the entities the question names, most confident first. A fact card scores

    final = fused x fact_card_weight x (fact_confidence_floor + (1 - floor) x confidence) x answer

where `answer` is `fact_answer_boost` for a fact of the one-valued predicate the question asks
of an entity it names ("where does Sam work?" and Sam's works_at), else 1;

cites the episodes its fact was drawn from (`related_ids`), shows the time the fact refers
to (or when it was first stated), and its trace names the sources that found it and the
FACT edge as the path (a fact card is the one whose `layer` is "semantic"). Its id is the fact's id, not an episode's. Closed facts (replaced,
reversed) are never shown.
"""

from __future__ import annotations

from engine.fact_text import fact_text
from engine.models import ChannelHit, GraphPath, MemoryCard, PathNode, Trace, from_epoch
from engine.recall.analysis import QueryAnalysis
from engine.recall.fusion import Scored
from engine.recall.stages import RecallContext, fuse_for
from engine.text import has_cjk, tokenize
from engine.views import Fact

__all__ = ["FACT_SOURCES", "answer_factor", "fact_cards"]

SECONDS_PER_DAY = 86_400.0
FACT_SOURCES = ("vector", "keyword", "entity")


def fact_cards(context: RecallContext) -> tuple[list[MemoryCard], dict[str, list[str]]]:
    """The fact cards of one recall, best first (at most `fact_candidates`); and for each
    card whose fact closed another about a named entity, the episodes that stated the
    closed one (for `engine.recall.updates.mark_replaced_by_facts`)."""
    c, namespace = context, context.request.namespace
    limit = c.settings.fact_candidates
    if limit == 0:
        return [], {}
    about = c.named.facts
    named = [f for f in about if f.valid_to is None]
    replaced: dict[str, list[str]] = {}
    for closed in about:
        if closed.valid_to is not None and closed.invalidated_by:
            replaced.setdefault(closed.invalidated_by, []).extend(closed.source_episode_ids)
    found = {**c.fact_points, "entity": [Scored(id=f.id, score=f.confidence) for f in named[:limit]]}
    weights = {source: c.weights[source] for source in FACT_SOURCES}
    fused = sorted(fuse_for(found, weights, c.settings).items(), key=lambda item: (-item[1][0], item[0]))[:limit]
    known = {f.id: f for f in named}
    missing = [i for i, _ in fused if i not in known]
    known.update((f.id, f) for f in c.reads.active_facts(missing))
    floor = c.settings.fact_confidence_floor
    named_ids = {e.id for e in c.known}
    cards = []
    for fact_id, (score, hits) in fused:
        fact = known.get(fact_id)
        if fact is None:
            continue  # a point whose fact was closed or removed since: the graph decides
        answers = answer_factor(fact, c.models.analysis, named_ids, c.settings.fact_answer_boost)
        final = score * c.settings.fact_card_weight * (floor + (1.0 - floor) * fact.confidence) * answers
        if c.request.min_score is None or final >= c.request.min_score:
            # The sources that found it, under their channels' names, ranked among the facts.
            cards.append(_card(fact, namespace, score, final, [h.channel_hit() for h in hits], c.now, answers))
    return cards, {card.id: replaced[card.id] for card in cards if card.id in replaced}


# What answers a question of a taste or a habit, of the thing it names.
_TASTES = frozenset({"likes", "dislikes", "quit", "drink", "eat", "play", "smoke", "uses", "watch"})


def answer_factor(fact: Fact, asked: QueryAnalysis, named: set[str], boost: float) -> float:
    """`boost` for a fact that answers the question outright: the predicate it asks
    (`engine.recall.asked`) of an entity it names, stated, not denied, and for a taste
    ("Does Leo like jazz?") or a having ("Does Ana have a cat?"), of a thing the question
    names; else 1."""
    taste = "likes" in asked.asks and fact.predicate in _TASTES  # "Does Jo drink coffee?": "Jo quit coffee"
    if not (fact.predicate in asked.asks or taste) or fact.subject_id not in named or fact.negated:
        return 1.0
    if taste and not _names(fact.object, asked.tokens):
        return 1.0  # "Leo likes rock" does not answer "Does Leo like jazz?"
    if fact.predicate == "has" and not set(tokenize(f"{fact.object} {fact.statement}")) & set(asked.tokens) - {
        *tokenize(fact.subject)
    }:
        return 1.0  # "I have a cat named Luna" answers "Does Ana have a cat?"; a car does not
    return boost


def _names(thing: str, words: list[str]) -> bool:
    """Whether a question's words name a fact's object: a word in common, or for Chinese a
    word of two characters or more inside it ("篮球" in "打篮球", one word to jieba)."""
    if set(tokenize(thing)) & set(words):
        return True
    return has_cjk(thing) and any(len(word) > 1 and has_cjk(word) and word in thing for word in words)


def _card(
    fact: Fact, namespace: str, fused: float, final: float, channels: list[ChannelHit], now: float, answers: float
) -> MemoryCard:
    at = fact.refers_to if fact.refers_to is not None else fact.valid_from
    trace = Trace(
        channels=channels,
        path=GraphPath(
            nodes=[
                PathNode(id=fact.subject_id, label="Entity", name=fact.subject),
                PathNode(id=fact.object_id, label="Entity", name=fact.object),
            ],
            relationships=["FACT"],
        ),
        fused=round(fused, 6),
        decay=1.0,
        age_days=round(max(0.0, now - fact.valid_from) / SECONDS_PER_DAY, 3),
        importance=fact.confidence,
        answer_factor=answers,
        final=round(final, 6),
    )
    return MemoryCard(
        id=fact.id,
        namespace=namespace,
        content=fact_text(fact),
        score=trace.final,
        occurred_at=from_epoch(at),
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
            "statement": fact.statement,
        },
        trace=trace,
    )
