"""Facts in words: a relation as a person says it ("Sam works at Microsoft"), a fact with the
statement it was drawn from, and an entity's profile in a line an agent can paste. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from engine.views import Fact

__all__ = ["fact_text", "profile_text", "relation"]

# Third-person verbs and their base form, for a negated relation ("does not like").
_BASE = {"likes": "like", "dislikes": "dislike", "prefers": "prefer", "works": "work", "lives": "live",
         "has": "have", "plans": "plan", "wants": "want", "uses": "use", "considers": "consider"}  # fmt: skip
# The vocabulary's other forms, said of someone as they are.
_SAID = frozenset({"is", "left", "met", "went", "made", "took", "got", "saw", "bought"})


def relation(fact: Fact) -> str:
    """The fact's relation in words.

    >>> relation(Fact(subject="Sam", predicate="works_at", object="Microsoft", statement="",
    ...               confidence=1, support=1, valid_from=0))
    'Sam works at Microsoft'
    >>> relation(Fact(subject="Sam", predicate="likes", negated=True, object="jazz", statement="",
    ...               confidence=1, support=1, valid_from=0))
    'Sam does not like jazz'
    >>> relation(Fact(subject="Sam", predicate="favorite_sport", object="badminton", statement="",
    ...               confidence=1, support=1, valid_from=0))
    "Sam's favorite sport is badminton"
    """
    if fact.predicate.startswith("favorite_"):
        kind = fact.predicate.removeprefix("favorite_").replace("_", " ")
        return f"{fact.subject}'s favorite {kind} {'is not' if fact.negated else 'is'} {fact.object}"
    verb, *rest = fact.predicate.split("_")
    if fact.negated:
        verb = "is not" if verb == "is" else f"does not {_BASE.get(verb, verb)}"
    else:
        verb = _third_person(verb)
    return " ".join([fact.subject, verb, *rest, fact.object])


def _third_person(verb: str) -> str:
    """A predicate's verb as said of someone: a bare lemma ("play", "volunteer") takes its
    -s; the vocabulary's forms ("likes", "attended", "is") stay.

    >>> [_third_person(v) for v in ("play", "go", "study", "watch", "likes", "attended", "left")]
    ['plays', 'goes', 'studies', 'watches', 'likes', 'attended', 'left']
    """
    if verb in _BASE or verb in _SAID or verb.endswith("ed") or not verb.isascii():
        return verb
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def fact_text(fact: Fact) -> str:
    """What a fact point holds and a fact card shows: the relation, then its statement."""
    statement = fact.statement.strip()
    return f"{relation(fact)}: {statement}" if statement else relation(fact)


def profile_text(name: str, facts: Sequence[Fact], *, limit: int = 12) -> str:
    """An entity's current facts in one line, by predicate, each value with when it was
    stated (or the time it names): what an agent pastes into a prompt.

    >>> fact = lambda p, o, at: Fact(subject="Sam", predicate=p, object=o, statement="",
    ...                              confidence=1, support=1, valid_from=at)
    >>> profile_text("Sam", [fact("works_at", "Microsoft", 1750420800), fact("likes", "jazz", 1746000000),
    ...                      fact("likes", "hiking", 1741000000)])
    'Sam: works at Microsoft (Jun 2025); likes jazz (Apr 2025), hiking (Mar 2025).'
    """
    groups: dict[str, list[str]] = {}
    for fact in list(facts)[:limit]:
        words = relation(fact).removeprefix(fact.subject).strip()
        verb = words.removesuffix(fact.object).strip()
        at = fact.refers_to if fact.refers_to is not None else fact.valid_from
        groups.setdefault(verb, []).append(f"{fact.object} ({_month(at)})")
    if not groups:
        return f"{name}: nothing known yet."
    return f"{name}: " + "; ".join(f"{verb} {', '.join(values)}" for verb, values in groups.items()) + "."


def _month(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%b %Y")
