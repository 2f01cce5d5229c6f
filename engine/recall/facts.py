"""Cards of semantic memory: the active facts that answer the question.

Three sources, fused as the episodes' channels are (`engine.recall.fusion`): the fact points
nearest the question's embedding and its keywords (`engine/fact_points.py`), and the facts
about the entities the question names, most confident first. A fact card scores

    final = fused x fact_card_weight x (fact_confidence_floor + (1 - floor) x confidence)
            x answer x relevance

where `answer` is `fact_answer_boost` for a fact of the one-valued predicate the question asks
of an entity it names ("where does Sam work?" and Sam's works_at), or for one that closed
such a fact (Luna's loss for "does Ana have a cat?"), else 1; and `relevance`, where episodes
are recalled beside facts, puts a fact on their scale (`relevance_factor`): fusion ranks facts
among facts, so the best of weak facts would otherwise stand beside the best episodes.

A card cites the episodes its fact was drawn from (`related_ids`), shows the time the fact
refers to (or when it was first stated), and its trace names the sources that found it and
the FACT edge as the path (a fact card is the one whose `layer` is "semantic"). Its id is the
fact's id, not an episode's. Closed facts (replaced, reversed) are never shown.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.fact_text import fact_text
from engine.models import ChannelHit, GraphPath, MemoryCard, PathNode, Trace, from_epoch
from engine.recall.analysis import QueryAnalysis
from engine.recall.fusion import RankedHit, Scored
from engine.recall.stages import RecallContext, fuse_for
from engine.text import has_cjk, tokenize
from engine.views import LESSON_RULES, Fact

__all__ = ["FACT_SOURCES", "answer_factor", "fact_cards", "relevance_factor"]

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
    named_ids = {e.id for e in c.known}
    boost = c.settings.fact_answer_boost
    closers = set()  # facts that closed one answering the question: "lost Luna" for "has a cat?"
    for closed in about:
        if closed.valid_to is not None and closed.invalidated_by:
            replaced.setdefault(closed.invalidated_by, []).extend(closed.source_episode_ids)
            if answer_factor(closed, c.models.analysis, named_ids, boost) > 1:
                closers.add(closed.invalidated_by)
    found = {**c.fact_points, "entity": [Scored(id=f.id, score=f.confidence) for f in named[:limit]]}
    weights = {source: c.weights[source] for source in FACT_SOURCES}
    fused = sorted(fuse_for(found, weights, c.settings).items(), key=lambda item: (-item[1][0], item[0]))[:limit]
    known = {f.id: f for f in named}
    missing = [i for i, _ in fused if i not in known]
    known.update((f.id, f) for f in c.reads.active_facts(missing))
    floor = c.settings.fact_confidence_floor
    similar = _similarities(c)
    cards = []
    for fact_id, (score, hits) in fused:
        fact = known.get(fact_id)
        if fact is None:
            continue  # a point whose fact was closed or removed since: the graph decides
        answers = boost if fact_id in closers else answer_factor(fact, c.models.analysis, named_ids, boost)
        # A fact that answers outright is no weak fact, however its words compare; a lesson answers
        # a question after a lesson when it is among the facts that match it best, else only as
        # far as its words are the question's.
        exempt = answers > 1 and (fact.rule not in LESSON_RULES or (c.models.analysis.asks_lesson and _matches(hits)))
        relevance = 1.0 if similar is None or exempt else similar.factor(fact_id, c.settings.fact_relevance_power)
        final = score * c.settings.fact_card_weight * (floor + (1.0 - floor) * fact.confidence) * answers * relevance
        if c.request.min_score is None or final >= c.request.min_score:
            # The sources that found it, under their channels' names, ranked among the facts.
            hits_shown = [h.channel_hit() for h in hits]
            cards.append(_card(fact, namespace, score, final, hits_shown, c.now, (answers, relevance)))
    return cards, {card.id: replaced[card.id] for card in cards if card.id in replaced}


_BEST_MATCHES = 3  # a fact among the first this many of the fact points a question finds


def _matches(hits: list[RankedHit]) -> bool:
    """Whether the fact points found a fact among their first few, by meaning or by words."""
    return any(hit.channel in ("vector", "keyword") and hit.rank <= _BEST_MATCHES for hit in hits)


def relevance_factor(similarity: float, best_episode: float, power: float) -> float:
    """(a fact's similarity to the question / the best episode's)^power, at most 1; 1 when
    no episode was found to compare with.

    >>> relevance_factor(0.4, 0.8, 2.0), relevance_factor(0.9, 0.8, 2.0), relevance_factor(0.0, 0.0, 2.0)
    (0.25, 1.0, 1.0)
    """
    if best_episode <= 0:
        return 1.0
    return float(min(1.0, max(0.0, similarity) / best_episode) ** power)


class _Similarities(NamedTuple):
    """How near the question the fact points and the best episode are, for one recall."""

    points: dict[str, float]  # each fact point the vector search reached
    unreached: float  # the bound of one it did not reach: the least similar it did, or 0
    best_episode: float

    def factor(self, fact_id: str, power: float) -> float:
        return relevance_factor(self.points.get(fact_id, self.unreached), self.best_episode, power)


def _similarities(c: RecallContext) -> _Similarities | None:
    """For a recall of episodes and facts together, how near the question its fact points and
    its best episode are; None for facts alone, or with the factor off."""
    if c.request.layer is not None or c.settings.fact_relevance_power == 0 or "vector" not in c.found:
        return None
    points = {hit.id: hit.score for hit in c.fact_points.get("vector", [])}
    best = max((hit.score for hit in c.found["vector"].found), default=0.0)
    return _Similarities(points, min(points.values(), default=0.0), best)


# What answers a question of a taste or a habit, of the thing it names.
_TASTES = frozenset({"likes", "dislikes", "quit", "drink", "eat", "play", "smoke", "uses", "watch"})


def answer_factor(fact: Fact, asked: QueryAnalysis, named: set[str], boost: float) -> float:
    """`boost` for a fact that answers the question outright: a lesson, for a question after a
    lesson or a fix; the predicate it asks (`engine.recall.asked`) of an entity it names,
    stated, not denied, and for a taste ("Does Leo like jazz?") or a having ("Does Ana have a
    cat?"), of a thing the question names; else 1."""
    if fact.rule in LESSON_RULES:
        return boost if asked.asks_lesson or asked.asks_fix or asked.signature_keys else 1.0
    taste = "likes" in asked.asks and fact.predicate in _TASTES  # "Does Jo drink coffee?": "Jo quit coffee"
    if not (fact.predicate in asked.asks or taste) or fact.subject_id not in named or fact.negated:
        return 1.0
    if taste and not _names(fact.object, asked.tokens):
        return 1.0  # "Leo likes rock" does not answer "Does Leo like jazz?"
    if fact.predicate == "has" and not _names(f"{fact.object} {fact.statement}", asked.tokens, fact.subject):
        return 1.0  # "I have a cat named Luna" answers "Does Ana have a cat?"; a car does not
    return boost


def _names(thing: str, words: list[str], subject: str = "") -> bool:
    """Whether a question's words name a fact's object (or what its statement says of it,
    the subject's name aside): a word in common, or for Chinese one inside the other ("篮球"
    in "打篮球", "狗" in "养狗": jieba keeps each as one word).

    >>> _names("我养了一只叫豆豆的狗", ["小林", "养狗"], "小林"), _names("我有一辆车", ["小林", "养狗"])
    (True, False)
    """
    own = set(tokenize(thing)) - set(tokenize(subject))
    if own & set(words):
        return True
    if not has_cjk(thing):
        return False
    return any(len(word) > 1 and has_cjk(word) and word in thing for word in words) or any(
        has_cjk(piece) and piece in word for piece in own for word in words
    )


def _card(
    fact: Fact, namespace: str, fused: float, final: float, channels: list[ChannelHit], now: float,
    factors: tuple[float, float],
) -> MemoryCard:
    answers, relevance = factors
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
        relevance_factor=round(relevance, 6),
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
            "rule": fact.rule,
        },
        trace=trace,
    )
