"""Noun phrases in spaCy's parse: which head names a thing, and its words. Pure over tokens.

"my two kids" is kids, "a great personal milestone" is personal milestone, "some of my favorite
treats" means the treats; "it", "a lot", "a pic" and "my mood" name nothing worth a fact.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NOUNS", "SUBJECTS", "is_thing", "modifiers", "phrase", "what_is_meant", "with_conjuncts"]

# Heads that do not name a thing ("I love it", "I did something").
_EMPTY_HEADS = frozenset({
    "it", "that", "this", "these", "those", "them", "something", "anything", "everything",
    "nothing", "one", "thing", "lot", "bit", "way", "time", "day", "moment", "kind",
    "sort", "yours", "mine", "what", "which", "who", "all", "some", "much", "more", "most",
    "people", "person", "guy", "guys", "folk", "folks", "everyone", "someone", "anyone",
    "blast", "chance", "detail", "details", "load", "loads", "others", "fun", "progress", "idea",
    "opportunity", "part", "lots", "deal", "dream", "sense", "difference",
    "ton", "tons", "second", "minute", "course", "vibe", "vibes", "hand", "hands", "forces",
    "word", "plunge", "back", "backs", "laugh", "while", "days", "weeks", "months", "years",
    "times", "shot", "news", "importance", "power", "summer", "winter", "spring", "autumn",
    "weekend", "night", "morning", "evening", "afternoon", "hang", "week", "month", "year",
    "things", "words", "good", "ok", "okay", "fine", "bummer",
    # what the chat shows rather than what the speaker did: "here's a pic I took"
    "pic", "pics", "photo", "photos", "picture", "pictures", "video", "videos", "snap",
    "screenshot", "selfie",
    # halves of idioms: "keep in mind", "take care", "take turns", "came out on top"
    "mind", "care", "turn", "turns", "top", "look", "feeling", "feelings", "bunch", "fingers",
    "speaking", "set",
    # when, not what: the small model does not always tag "November 27" as a date
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "today", "tomorrow", "yesterday", "tonight",
})  # fmt: skip
# Heads that name a thing only with a word that says which: "a personal milestone", "the LGBTQ
# community" are facts, "my mood", "a big impact", "our bond" are not.
_VAGUE_BARE = frozenset({
    "experience", "support", "advice", "journey", "impact", "change", "future", "strength",
    "struggle", "love", "passion", "place", "spot", "potential", "mood", "heart", "chat", "tip",
    "mistake", "buzz", "surge", "turnout", "surprise", "accomplishment", "world", "step",
    "energy", "joy", "happiness", "help", "game", "stuff",
})  # fmt: skip
# "some of my favorite treats", "all kinds of games": the quantity is not the thing
_QUANTITIES = frozenset({
    "some", "lot", "lots", "bunch", "couple", "few", "many", "plenty", "ton", "tons", "all", "one",
    "most", "each", "both", "any", "kind", "kinds", "sort", "sorts", "type", "types",
})  # fmt: skip
# Adjectives that judge rather than describe: "an amazing experience" is an experience.
_EVALUATIVE = frozenset({
    "good", "great", "nice", "amazing", "awesome", "big", "little", "small", "new", "old",
    "beautiful", "lovely", "whole", "other", "same", "real", "first", "last", "favorite",
    "favourite", "wonderful", "fantastic", "cool", "incredible", "huge", "special", "own", "much",
    "best", "bad", "hard", "tough", "fun", "such", "many", "few", "several", "long", "short",
    "top", "biggest", "epic",
})  # fmt: skip
SUBJECTS = ("nsubj", "nsubjpass")  # the dependency labels of a clause's subject
_MODIFIERS = frozenset({"compound", "amod", "nmod"})
NOUNS = frozenset({"NOUN", "PROPN"})


def phrase(head: Any) -> tuple[str, str]:
    """(text, lemma key) of a noun phrase: compounds and descriptive adjectives before the head,
    without determiners, possessives or counts ("my two kids" -> "kids", "kid")."""
    kept = sorted([*modifiers(head), head], key=lambda t: t.i)
    text = " ".join(t.text for t in kept)
    # Names keep their spelling: the small model lemmatises "Postgres" to "postgre" as a noun.
    key = " ".join(t.lower_ if t.pos_ == "PROPN" or t.text[:1].isupper() else t.lemma_.lower()
                   for t in kept)  # fmt: skip
    return text, key


def modifiers(head: Any) -> list[Any]:
    """The words before a noun that say which one: "personal" in "a great personal milestone"."""
    found = []
    for t in head.lefts:
        if t.dep_ in _MODIFIERS and t.is_alpha and not {t.lower_, t.lemma_.lower()} & _EVALUATIVE:
            # "Harry Potter party": a compound keeps its own compounds
            found += [*(modifiers(t) if t.dep_ == "compound" else []), t]
    return found


def is_thing(token: Any) -> bool:
    return (
        token.pos_ in NOUNS
        and token.lower_ not in _EMPTY_HEADS
        and not (token.lemma_.lower() in _VAGUE_BARE and not modifiers(token))
        and token.ent_type_ not in ("DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT")
        and token.is_alpha
        and (len(token.text) > 2 or token.text.isupper())
    )


def what_is_meant(token: Any) -> Any:
    """"some of my treats" means the treats, "a game called FIFA" means FIFA."""
    if token.lower_ in _QUANTITIES:
        meant = [o for p in token.children if p.lower_ == "of" for o in p.children if o.dep_ == "pobj"]
        return meant[0] if meant else token
    named = [
        n for clause in token.children if clause.dep_ == "acl" and clause.lemma_ in ("call", "name")
        for n in clause.children if n.dep_ in ("oprd", "attr", "dobj") and n.pos_ == "PROPN"
    ]  # fmt: skip
    return named[0] if named else token


def with_conjuncts(token: Any) -> list[Any]:
    """The object and the objects coordinated with it: "the kids & work" -> kids, work."""
    found = [token]
    for child in token.children:
        if child.dep_ == "conj" and child.pos_ in NOUNS:
            found += with_conjuncts(child)
    return found
