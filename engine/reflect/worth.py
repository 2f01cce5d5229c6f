"""Which statements are worth a fact: what a profile of a person keeps, or a thing they did
that one could ask about. Pure.

A statement can be true and still say nothing worth remembering: "I made some goodies", "we
had a real battle", "your friendship means everything", "I took a few notes". Kept are the
vocabulary's relations (likes, works_at, lives_in, plans_to ...), a favourite of a kind, a
relation to a named entity of the episode ("met Carol", "ran the Boston Marathon"), the verbs
of what a person does, learns, makes of their life (`DOINGS`: plays, teaches, adopted,
volunteers at ...), and any other verb with a direct object one could point at ("grilled
chicken"), but not an abstraction (`ABSTRACT`: "had trouble") nor after a light verb ("made",
"brought").
"has" is kept only of what a profile keeps (children, a partner, pets, a car, a business),
"take" only of classes, lessons and trips, and an activity ("does", "went X-ing") only of a
pastime (`HOBBIES`). The words are `engine.reflect.worth_words`.
"""

from __future__ import annotations

from engine.reflect.vocabulary import VOCABULARY
from engine.reflect.word_lists import WordLists
from engine.reflect.worth_words import (
    ABSTRACT,
    DOING_LINKS,
    DOINGS,
    HAD,
    HOBBIES,
    LIGHT,
    LINKED,
    TAKEN,
    WANTS_OBJECT,
)

_WORDS = WordLists("worth")

__all__ = ["worth_keeping"]

_LEANINGS = _WORDS("leanings")


_WANTS_OBJECT = WANTS_OBJECT | LIGHT  # "likes playing", "likes sharing": a doing without its object

# The small model leaves a sentence-initial "Took some trial and error" unlemmatised.
_PAST = {"took": "take"}


def _verb_forms(word: str) -> set[str]:
    """A word and, for one in -ing, the verbs it may come from: "hiking" hike, "running" run."""
    if not word.endswith("ing") or len(word) < 5:
        return {word}
    stem = word[:-3]
    return {word, stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem}


def worth_keeping(predicate: str, object_key: str, *, named: bool, negated: bool = False) -> bool:
    """Whether a statement's relation is worth a fact (module docstring). `named`: the object
    is a named entity of the episode; `negated`: the statement says it is not so.

    >>> kept = [("likes", "jazz"), ("favorite_sport", "tennis"), ("grill", "chicken"), ("has", "kid"),
    ...         ("take", "painting class"), ("volunteer_at", "animal shelter"), ("does", "surf"),
    ...         ("go", "hiking"), ("go", "rock climbing"), ("go_on", "road trip")]
    >>> dropped = [("make", "goodie"), ("form", "connection"), ("has", "battle"), ("take", "note"),
    ...            ("does", "plow"), ("go_through", "similar phase"), ("hop_between", "yoga"),
    ...            ("likes", "life"), ("create", "memory"), ("explore", "option"), ("likes", "playing"),
    ...            ("does", "learning"), ("wants", "positive change")]
    >>> [worth_keeping(p, o, named=False) for p, o in kept + dropped] == [True] * 10 + [False] * 13
    True
    >>> worth_keeping("meet", "carol", named=True), worth_keeping("meet", "carol", named=False)
    (True, False)
    """
    head = (object_key.split() or [object_key])[-1]
    if predicate == "has":
        return named or head in HAD or object_key[-2:] in HAD or object_key[-1:] in HAD
    if predicate in _LEANINGS and head in ABSTRACT:
        return False  # "likes life", "plans_to memories": a liking of nothing one can name
    bare_doing = head == object_key and bool(_verb_forms(head) & _WANTS_OBJECT)
    if predicate in _LEANINGS and not named and bare_doing:
        return False  # "likes playing", "likes watching": the doing without what is done
    if predicate in VOCABULARY or predicate.startswith("favorite_") or named:
        return True
    verb = predicate.split("_")[0]
    verb = _PAST.get(verb, verb)  # "took trial and error" is a take
    if negated and verb not in DOINGS:
        return False  # "didn't approach her", "don't underestimate the difficulties"
    if verb in LINKED and predicate != verb and predicate not in LINKED[verb]:
        return False  # "went through a similar phase"
    if predicate == "work_from" and head != "home":
        return False  # "work from regular maintenance"
    if predicate in ("does", "go"):
        return object_key in HOBBIES or bool(_verb_forms(head) & HOBBIES)
    if verb == "take":
        return head in TAKEN or object_key.endswith("课")
    if head in ABSTRACT and (object_key == head or verb not in DOINGS):
        return False  # "created memories", "explored options"; not "building a Flask app"
    if verb in DOINGS or predicate in DOING_LINKS:
        return True
    # "hop between yoga", "support from a music program": a preposition of another verb
    # is more often misread than not
    return predicate == verb and verb not in LIGHT
