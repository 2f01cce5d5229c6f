"""Statements of what the speaker likes, has or values, read from forms other than a verb with its
object: "Painting landscapes is my favorite", "X has replaced Y as my favourite author", "my
kids loved it", "dogs bring me so much joy", "your kind words mean a lot". Pure over a parsed
sentence.
"""

from __future__ import annotations

from typing import Any

from engine.reflect.phrases import SUBJECTS, is_thing, phrase, pointed_at, with_conjuncts
from engine.reflect.statement_cues import CHANGES
from engine.reflect.vocabulary import Statement, by_rule
from engine.reflect.word_lists import WordLists
from engine.reflect.worth_words import KIN, OWNED, PETS

_WORDS = WordLists("stances")

__all__ = ["stances"]

_DOES_GOOD = _WORDS("does_good")
_DOES_HARM = _WORDS("does_harm")
_GLAD = _WORDS("glad")
# What a thing that does one good brings: "dogs bring me so much joy".
_GIFTS = _GLAD | {"joy", "comfort", "happiness", "solace", "relief", "warmth", "serenity"}
_MUCH = _WORDS("much")
_FAVOURITE = _WORDS("favourite")


def stances(sentence: Any) -> list[Statement]:
    """Every statement of these forms in a sentence."""
    return (
        by_rule("en.favourite", _favourites(sentence)) + by_rule("en.possession", _possessions(sentence))
        + by_rule("en.comfort", _comforts(sentence)) + by_rule("en.love", _loves(sentence))
        + by_rule("en.gratitude", _gratitude(sentence))
    )  # fmt: skip


def _of_speaker(predicate: str, thing: Any, sentence: Any, *, negated: bool = False) -> Statement:
    text, key = phrase(thing)
    return Statement(subject_kind="speaker", subject="I", predicate=predicate, object=text,
                     object_key=key, negated=negated, sentence=sentence.text.strip())  # fmt: skip


def _denied(verb: Any) -> bool:
    """"Sushi is not my thing anymore", "I'm not a fan": the verb says it is not so."""
    return any(c.dep_ == "neg" for c in verb.children)


def _my_favourite(noun: Any) -> bool:
    """"my favorite", "my favorite book", "my top pick", "one of my favorites"."""
    if noun.lower_ == "one":
        return any(_my_favourite(o) for p in noun.children if p.lower_ == "of" for o in p.children)
    children = {c.lower_ for c in noun.children}
    return "my" in children and (noun.lemma_ in _FAVOURITE or bool(children & {"favorite", "favourite", "top"}))


def _favourite_of(noun: Any) -> str:
    """The predicate of a favourite: of a kind, one value per kind ("my favorite sport":
    favorite_sport, `engine/reflect/reconcile.py`); of no kind ("my favorite"), a liking."""
    kind = noun.lemma_.lower()
    return "likes" if kind in _FAVOURITE or kind == "one" or not kind.isalpha() else f"favorite_{kind}"


def _favourites(sentence: Any) -> list[Statement]:
    """"Painting landscapes is my favorite", "Harry Potter is my favorite book", "my favorite
    treat is this raspberry tart": the speaker's favourite (of a kind, `_favourite_of`)."""
    found = []
    for verb in sentence:
        if verb.lemma_ != "be":
            continue
        subjects = [c for c in verb.children if c.dep_ == "nsubj" and c.pos_ in ("NOUN", "PROPN", "VERB")]
        named = [c for c in verb.children if c.dep_ in ("attr", "acomp")]
        mine = [n for n in named if _my_favourite(n)]
        liked = subjects and (is_thing(subjects[0]) or subjects[0].tag_ == "VBG") and not pointed_at(subjects[0])
        if mine and liked:  # "Tennis and rugby are my favourite sports": each of them
            found += [_of_speaker(_favourite_of(mine[0]), s, sentence, negated=_denied(verb))
                      for s in (subjects[0], *subjects[0].conjuncts) if s is subjects[0] or is_thing(s)]  # fmt: skip
        elif mine and (named_before := _named_before_it(verb, sentence)) is not None:
            found.append(_of_speaker(_favourite_of(mine[0]), named_before, sentence, negated=_denied(verb)))
        # "I'm not a Taylor Swift fan anymore": a fan of the name before "fan"
        fans = [c for c in named if c.lemma_ == "fan" and any(s.lower_ == "i" for s in verb.children)]
        found += [_of_speaker("likes", n, sentence, negated=_denied(verb)) for f in fans for n in f.children
                  if n.dep_ == "compound" and n.pos_ == "PROPN" and n.head.i == f.i]  # fmt: skip
        favourite = [s for s in subjects + [a for c in subjects for a in c.children if a.dep_ == "appos"]
                     if _my_favourite(s)]  # fmt: skip
        # "My favourite sports are tennis and rugby": each of the named and its conjuncts
        found += [_of_speaker(_favourite_of(favourite[0]), thing, sentence)
                  for n in named for thing in (n, *n.conjuncts) if favourite and is_thing(thing)]  # fmt: skip
    for verb in sentence:  # "Sally Rooney has replaced Murakami as my favourite author"
        if verb.lemma_ == "replace":
            roles = [o for p in verb.children if p.dep_ == "prep" and p.lower_ == "as" for o in p.children]
            mine = [o for o in roles if _my_favourite(o)]
            found += [_of_speaker(_favourite_of(mine[0]), s, sentence) for s in verb.children
                      if mine and s.dep_ == "nsubj" and is_thing(s)]  # fmt: skip
    return found


def _named_before_it(verb: Any, sentence: Any) -> Any | None:
    """"I watched Interstellar again and it's my favorite movie now": what "it" names, the
    name the sentence gave the thing just before."""
    if not any(c.dep_ == "nsubj" and c.lower_ in ("it", "this") for c in verb.children):
        return None
    names = [t for t in sentence if t.i < verb.i and t.pos_ == "PROPN" and t.dep_ in ("dobj", "pobj")]
    # "I've switched to volleyball, it's my favorite sport now": what one changed to
    changed = [t for t in sentence if t.i < verb.i and t.dep_ == "pobj" and t.head.lower_ == "to"
               and t.head.head.lemma_ in CHANGES and is_thing(t)]  # fmt: skip
    return names[-1] if names else changed[-1] if changed else None


def _loves(sentence: Any) -> list[Statement]:
    """"It stoked my love of engineering", "one of my favorite dishes is lasagna": the
    speaker likes what their love is of, or what their favourite is."""
    found = []
    for token in sentence:
        if token.lemma_ in ("love", "passion") and token.pos_ == "NOUN" and any(
            c.dep_ == "poss" and c.lower_ == "my" for c in token.children
        ):
            found += [_of_speaker("likes", o, sentence) for p in token.children if p.dep_ == "prep"
                      for o in p.children if o.dep_ == "pobj" and is_thing(o)]  # fmt: skip
        if token.dep_ == "nsubj" and token.lower_ == "one" and token.head.lemma_ == "be":
            favourite = any(t.lower_ in _FAVOURITE and any(g.lower_ == "my" for g in t.head.children)
                            for t in token.subtree)  # fmt: skip
            found += [_of_speaker("likes", a, sentence) for a in token.head.children
                      if favourite and a.dep_ == "attr" and is_thing(a)]  # fmt: skip
    return found


def _comforts(sentence: Any) -> list[Statement]:
    """"Dogs and nature bring me so much joy", "nature calms me down", "dancing makes me so
    happy", "family keeps me at peace": the speaker likes what does them good, and dislikes
    what bores or annoys them ("chess bores me now")."""
    found = []
    for verb in sentence:
        if verb.lemma_ in ("make", "keep"):  # "makes me so happy", "keep me at peace"
            after = [t for t in verb.subtree if t.i > verb.i]
            told = {t.lower_ for t in after} & {"me", "us"}
            good = bool(told) and any(t.lemma_.lower() in _GLAD for t in after)
        else:
            told = {c.lower_ for c in verb.children} & {"me", "us"}
            # "brings me joy", not "brings us together"
            given = verb.lemma_ != "bring" or any(
                c.dep_ == "dobj" and c.lemma_.lower() in _GIFTS for c in verb.children
            )
            good = verb.lemma_ in _DOES_GOOD and bool(told) and given
        bad = verb.lemma_ in _DOES_HARM and any(c.lower_ == "me" for c in verb.children)  # "chess bores me now"
        if not (good or bad):
            continue
        for subject in verb.children:
            # "pets make us so much happier" is said of everyone; "our dogs make us happy" is not
            general = "me" not in told and not any(c.dep_ == "poss" for c in subject.children)
            if subject.dep_ == "nsubj" and is_thing(subject) and not (good and general):
                found += [_of_speaker("dislikes" if bad else "likes", thing, sentence) for thing in with_conjuncts(subject)]
    return found


def _gratitude(sentence: Any) -> list[Statement]:
    """"Your kind words mean a lot", "your support is greatly appreciated": the speaker
    appreciates what the other party gave."""
    found = []
    for token in sentence:
        verb = token.head
        valued = (verb.lemma_ == "mean" and any(c.lower_ in _MUCH for c in verb.children)) or (
            verb.lemma_ == "appreciate" and token.dep_ == "nsubjpass"
        )
        if (valued and token.dep_ in SUBJECTS and token.pos_ == "NOUN" and token.is_alpha
                and any(c.dep_ == "poss" and c.lower_ == "your" for c in token.children)):  # fmt: skip
            found += [_of_speaker("appreciate", thing, sentence) for thing in with_conjuncts(token)]
    return found


# Who and what a person has that says something about them: "my apartment is tiny", "my
# flight got cancelled" and "my grandma passed away" say nothing a profile would keep.
_KEPT = KIN | PETS | OWNED


def _possessions(sentence: Any) -> list[Statement]:
    """"My kids loved it": the speaker has kids. Only a subject's possessive, where the
    sentence is about the thing possessed, and only of what a profile keeps (`_KEPT`); "our"
    in chat is mostly everyone's ("our loved ones are so important")."""
    return [
        _of_speaker("has", token, sentence)
        for token in sentence
        if token.dep_ in SUBJECTS and is_thing(token) and token.pos_ == "NOUN"
        and (token.lower_ in _KEPT or token.lemma_.lower() in _KEPT)
        and any(c.dep_ == "poss" and c.lower_ == "my" for c in token.children)
        and not _my_favourite(token)  # "my favorite treat is X" is about X
    ]  # fmt: skip
