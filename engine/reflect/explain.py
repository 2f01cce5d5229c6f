"""What a fact's rule read in each episode the fact stands on (`Memory.explain_fact`).

The statement rules are deterministic over an episode's stored text, so reading a source again
finds the sentence and the words the rule took when reflection read it (unless the rules have
changed since, when the source shows no sentence). Facts of other rules (a lesson, a decision,
a language model's reading) keep their sentence on the fact itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.fact_text import relation
from engine.models import Episode
from engine.reflect.rule_book import rule_book
from engine.reflect.run import statements_of
from engine.reflect.vocabulary import Statement
from engine.views import Fact, FactExplanation, FactSource

__all__ = ["explain_fact"]

_STATEMENT_RULES = ("en.", "zh.")


def explain_fact(fact: Fact, episodes: Sequence[Episode]) -> FactExplanation:
    """The fact with its rule, what the rule reads, and what it read in each source episode
    (`fact` as shown, `Fact.shown`; `episodes`: its sources as the graph holds them)."""
    rule = fact.rule or "statement"
    live = sorted((e for e in episodes if e.id in fact.source_episode_ids and e.deleted_at is None),
                  key=lambda e: (e.occurred_at, e.id))
    read: dict[str, list[Statement]] = {}
    if rule.startswith(_STATEMENT_RULES) and live:
        said = statements_of([e.content for e in live], [e.role for e in live], kinds=[e.kind for e in live])
        read = {e.id: statements for e, statements in zip(live, said, strict=True)}
    sources = []
    for episode in live:
        statement = _the_one(fact, rule, read.get(episode.id, []))
        sources.append(FactSource(episode_id=episode.id, said=statement.sentence.strip() if statement else "",
                                  words=_words(statement) if statement else []))  # fmt: skip
    entry = rule_book().get(rule)
    about = entry.about if entry else "a rule this version of hindsight does not know"
    return FactExplanation(fact=fact, rule=rule, rule_about=about, sources=sources, why=_why(fact, rule, len(sources)))


def _words(statement: Statement) -> list[str]:
    """The subject, the words that carry the predicate where the rule knows them, the object."""
    return [w for w in (statement.subject, statement.cue, statement.object) if w]


def _the_one(fact: Fact, rule: str, statements: list[Statement]) -> Statement | None:
    """The statement of `rule` that reads the fact: its predicate and negation, and an object
    that is the fact's or holds it ("school soccer team" for "soccer team")."""
    mine = [s for s in statements if s.rule == rule and s.predicate == fact.predicate and s.negated == fact.negated]
    wanted = fact.object.casefold()
    return next((s for s in mine if wanted in s.object.casefold() or s.object.casefold() in wanted), None)


def _why(fact: Fact, rule: str, standing: int) -> str:
    """The fact in words, its rule, how many episodes it stands on, how sure and whether it holds.

    >>> f = Fact(subject="Sam", predicate="works_at", object="Canva", statement="", confidence=0.8,
    ...          support=2, valid_from=0, rule="en.clause")
    >>> _why(f, "en.clause", 2)
    'Sam works at Canva: read by en.clause from 2 episodes; confidence 0.80; current.'
    >>> _why(f.model_copy(update={"negated": True, "valid_to": 5.0}), "en.clause", 1)
    'Sam does not work at Canva: read by en.clause from 1 episode; confidence 0.80; replaced since.'
    """
    episodes = f"{standing} episode{'' if standing == 1 else 's'}"
    state = "current" if fact.valid_to is None else "replaced since"
    return f"{relation(fact)}: read by {rule} from {episodes}; confidence {fact.confidence:.2f}; {state}."
