"""Who a statement is about: a verb's subject (through the verb it is coordinated with, or who
was told to do it), and whether that subject is the speaker ("I", "my wife and I", "our
team"), the other party ("you"), a named person, or no one to resolve (a greeting, a name
called, "it"); and the "I" chat leaves out ("Lost my job yesterday"). Pure functions of a
parsed token, for `engine/reflect/statements.py`."""

from __future__ import annotations

from typing import Any

from engine.reflect.clauses import cannot_wait
from engine.reflect.phrases import SUBJECTS, phrase
from engine.reflect.statement_cues import (
    GROUPS,
    INTERJECTIONS,
    IRREGULAR_PAST,
    OTHER,
    PEOPLE,
    SPEAKER,
)

__all__ = ["says_i_without_saying_it", "subject_of", "who_is"]


def subject_of(verb: Any) -> Any | None:
    """The verb's subject, or the subject of the verb it is coordinated with ("... and uses").
    Of two, the nearer one before the verb: in "Hi Maria, ... I'm volunteering" the parser
    takes the greeted name for a subject too."""
    while verb is not None:
        # "I'm stuck": the parser may hang the subject on the auxiliary
        subjects = [c for c in verb.children if c.dep_ in SUBJECTS] + [
            g for c in verb.children if c.dep_ in ("aux", "auxpass") for g in c.children
            if g.dep_ in SUBJECTS
        ]  # fmt: skip
        if subjects:
            before = [c for c in subjects if c.i < verb.i]
            return before[-1] if before else subjects[0]
        # "I advise you to gather a group": who gathers is who was advised, not the adviser
        told = [c for c in verb.head.children if verb.dep_ == "xcomp" and c.dep_ in ("dobj", "dative")
                and (c.lower_ in PEOPLE or c.pos_ == "PROPN")]  # fmt: skip
        if told:
            return told[0]
        verb = verb.head if verb.dep_ in ("conj", "xcomp", "acomp") and verb.head.i != verb.i else None
    return None


def who_is(subject: Any) -> tuple[str, str] | None:
    """("speaker" | "other" | "named", text) for a subject token, None when unresolved."""
    lowered = subject.lower_
    if lowered in SPEAKER or any(c.dep_ == "conj" and c.lower_ in SPEAKER for c in subject.children):
        return "speaker", subject.text  # "my wife and I hosted": the speaker did
    if lowered in OTHER:
        return "other", subject.text
    if lowered in INTERJECTIONS:
        return None  # "Yep, taking care of ourselves is a must": the tagger's false name
    if subject.tag_ == "NNPS" and subject.i == subject.sent.start:
        return None  # a capitalised plural opening a sentence is rarely a name
    if _addressed(subject):
        return None
    if subject.pos_ == "NOUN" and any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in subject.children):
        if subject.lemma_.lower() in GROUPS:
            return "speaker", subject.text  # "our team uses Grafana": the speaker's side does
        named = [c for c in subject.children if c.dep_ == "appos" and c.pos_ == "PROPN"]
        if named:
            return "named", named[0].text  # "my son Leo joined the team": Leo did
    if subject.pos_ == "PROPN" or subject.ent_type_ in ("PERSON", "ORG", "PRODUCT", "GPE"):
        words = phrase(subject)[0].split()
        while words and words[0].lower() in INTERJECTIONS:
            words = words[1:]  # "Hi Maria, ...": the greeting is no part of the name
        return ("named", " ".join(words)) if words else None
    return None


def _addressed(subject: Any) -> bool:
    """"Sam! Take care", "Hey Nate, my favorite ...": a name set off by a comma, before an
    imperative or after a greeting, is who is spoken to."""
    after, before = subject.i + 1, subject.i - 1
    if after >= len(subject.doc) or subject.doc[after].text not in (",", "!"):
        return False
    greeted = before >= subject.sent.start and subject.doc[before].lower_ in INTERJECTIONS
    return greeted or (subject.head.tag_ == "VB" and subject.i < subject.head.i)


def says_i_without_saying_it(verb: Any) -> bool:
    """Chat drops the "I" of a sentence that opens with its verb in the past or in -ing
    ("Lost my job yesterday", "Still enjoying my soda"), or with "Can't wait"; a verb in its
    base form opens an imperative ("Check out this pic") and says nothing about the speaker,
    nor does "be" ("Been a busy week", "Must've been fun"), nor a verb in -s, whose dropped
    subject is "it" ("Reminds me of home")."""
    if verb.dep_ != "ROOT" or verb.lemma_ == "be":
        return False
    if verb.tag_ == "VBG" and any(c.dep_ == "aux" and c.i > verb.i for c in verb.children):
        return False  # "Working with artists ... are goals of mine": the -ing is the subject
    if cannot_wait(verb):
        return True
    first = next((t for t in verb.sent if not t.is_punct and t.lower_ not in INTERJECTIONS
                  and not (t.dep_ == "advmod" and t.head.i == verb.i)), None)  # fmt: skip
    opens = first is not None and (first.i == verb.i or (first.dep_ == "aux" and first.head.i == verb.i))
    if opens and _bidden(first, verb):
        return False
    # The tagger reads a capitalised opening verb as a base form, "Lost" and "Got" included.
    inflected = (
        verb.tag_ in ("VBD", "VBN", "VBG") or verb.lower_ != verb.lemma_.lower()
        or verb.lower_.endswith("ed") or verb.lower_ in IRREGULAR_PAST
    )  # fmt: skip
    # "Reminds me how much I love performing": a verb in -s drops "it", not "I"
    third_person = verb.tag_ == "VBZ" or (verb.lower_.endswith("s") and not verb.lemma_.lower().endswith("s"))
    return opens and inflected and not third_person


def _bidden(first: Any, verb: Any) -> bool:
    """An imperative the tagger took for a dropped "I": a base form read as an auxiliary ("Try
    flavored seltzer water instead"), or a verb whose past is its base form in a sentence
    about the one spoken to ("Set aside a few minutes ... with your eyes closed")."""
    if first.dep_ == "aux" and first.tag_ == "VB" and first.lemma_.lower() not in ("be", "have", "do"):
        return True
    return verb.lower_ == verb.lemma_.lower() and any(t.lower_ in ("you", "your", "yourself") for t in verb.sent)
