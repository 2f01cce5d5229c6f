"""The statement schema both languages produce, and the predicates people read. Pure.

A predicate is a lemma, with its particle or preposition ("volunteer_at", "take_up"), mapped
onto a small vocabulary where one fits: "went to", "attend" and "参加" are all `attended`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from engine.reflect.word_lists import WordLists
from engine.reflect.worth_words import GOTTEN, HOBBIES

_WORDS = WordLists("vocabulary")

__all__ = ["ENDS", "JOBS", "VOCABULARY", "Statement", "light_sense", "readable_predicate"]

VOCABULARY = (
    "likes", "dislikes", "prefers", "works_at", "lives_in", "has", "plans_to", "wants",
    "attended", "uses", "decided", "is", "left",
)  # fmt: skip


class Statement(BaseModel):
    """One thing a sentence states about its subject."""

    subject_kind: Literal["speaker", "other", "named"]
    subject: str  # as written ("I", "you", "Dana")
    predicate: str
    object: str  # the phrase as written, without determiners ("LGBTQ support group")
    object_key: str  # its lemmas, lower case: what two mentions of one concept share
    negated: bool = False
    hedged: bool = False
    sentence: str
    # The rule that read it: "en." or "zh." and the form ("en.clause", "zh.favourite"), or "llm".
    rule: str = "statement"
    # The words that carry the predicate, as written, where the rule knows them ("plan visit",
    # "想去", "mostly"): what `Memory.explain_fact` shows between the subject and the object.
    cue: str = ""


def by_rule(rule: str, statements: list[Statement]) -> list[Statement]:
    """`statements` as read by the rule named `rule`."""
    return [s.model_copy(update={"rule": rule}) for s in statements]


# Positive predicates that end another's fact on the same object (`engine.reflect.reconcile`).
ENDS = {
    "dislikes": ("likes",), "likes": ("dislikes",), "left": ("works_at", "lives_in"),
    "quit": ("likes", "does", "uses", "drink", "eat", "play", "smoke", "learn"),  # "I gave up coffee"
    "sell": ("has", "drive", "own", "uses"),  # "I sold the Civic"
    "lost": ("has", "adopt"),  # "Luna passed away"
    "broke_up_with": ("date", "married_to"),
    "dropped": ("uses",),  # "we migrated Atlas from Postgres to MySQL"
}  # fmt: skip
# (lemma, link) -> predicate; a link of "*" matches any (or none).
_MAPPED: dict[tuple[str, str | None], str] = {
    **{(verb, None): "likes" for verb in ("like", "love", "enjoy", "adore")},
    **{(verb, None): "dislikes" for verb in ("hate", "dislike", "detest", "loathe")},
    **{(verb, "*"): "plans_to" for verb in ("plan", "intend", "aim")},
    **{(verb, "*"): "wants" for verb in ("want", "hope", "wish")},
    ("decide", "*"): "decided",
    **{(verb, None): "decided" for verb in ("choose", "pick")},
    **{("work", prep): "works_at" for prep in ("at", "for", "in")},
    **{("live", prep): "lives_in" for prep in ("in", "at")},
    # A change of job or home: the newer value closes the older (engine/reflect/reconcile.py).
    ("start", "at"): "works_at",  # "started a new job at Microsoft"
    **{(verb, "to"): "lives_in" for verb in ("move", "relocate")},  # intransitive only: "moved to Seattle"
    **{(verb, None): "left" for verb in ("leave", "quit")},  # "left Stripe" ends works_at Stripe
    **{(verb, None): "quit" for verb in ("ditch", "dump")},  # "I ditched my iPhone"
    ("prefer", "*"): "prefers",
    **{(verb, "as"): "is" for verb in ("work", "start", "join", "serve")},  # "work as a nurse"
    ("be", "into"): "likes",
    ("be", "fan_of"): "likes",
    ("have", "love_for"): "likes",
    ("take", "care_of"): "takes_care_of",
    ("look", "to"): "plans_to",  # "looking forward to X"
    ("think", "about"): "considers",
    ("think", "of"): "considers",
    ("keep", "track_of"): "keeps_track_of",
    ("have", "passion_for"): "likes",
    ("be", "love_with"): "likes",
    ("be", None): "is",
    ("have", None): "has",
    ("own", None): "has",
    ("attend", None): "attended",
    **{(verb, "back_from"): "attended" for verb in ("get", "come")},  # "just got back from a festival"
    ("use", None): "uses",
    ("utilize", None): "uses",
    ("work", "with"): "uses",
    ("go", "with"): "decided",
    ("settle", "on"): "decided",
    # money put by for something: "saving up for a bike", "putting money aside for a trip"
    **{key: "save_for" for key in (("save", "for"), ("save", "up_for"), ("put", "aside_for"), ("set", "aside_for"), ("put", "away_for"))},
}
JOBS = _WORDS("jobs")
_VAGUE = _WORDS("vague")
_VAGUE_ALONE = _WORDS("vague_alone")
_BARE_LINKS = _WORDS("bare_links")


def readable_predicate(
    lemma: str, link: str | None, *, past: bool = False, passive: str | None = None,
    future: bool = False,
) -> str | None:  # fmt: skip
    """The predicate for a verb lemma and its particle or preposition; None for verbs whose
    objects say little about the subject.

    >>> readable_predicate("go", "to", past=True), readable_predicate("work", "at")
    ('attended', 'works_at')
    >>> readable_predicate("volunteer", "at"), readable_predicate("swamp", "with", passive="swamped")
    ('volunteer_at', 'swamped_with')
    >>> readable_predicate("go", "to"), readable_predicate("say", None)
    ('go_to', None)
    >>> readable_predicate("land", "job_at"), readable_predicate("lose", "job_at")
    ('works_at', 'left')
    >>> readable_predicate("employ", "at", passive="employed"), readable_predicate("hire", "by", passive="hired")
    ('works_at', 'works_at')
    >>> readable_predicate("settle", "in", passive="settled"), readable_predicate("accept", "offer_from")
    ('lives_in', 'works_at')
    """
    lemma = lemma.lower()
    if future:
        return "plans_to"
    if passive in ("employed", "hired", "recruited") and link in ("at", "by", "with", "for", "in"):
        return "works_at"  # "I'm employed at Siemens", "I got hired by Bosch"
    if passive in ("based", "settled", "located") and link == "in":
        return "lives_in"  # "we're settled in Vancouver now"
    if passive:
        return f"{passive}_{link}" if link else passive
    if lemma == "go" and link == "to" and past:
        return "attended"
    noun, _, preposition = (link or "").partition("_")
    if noun in JOBS and preposition == "as":
        return "is"  # "started a new job as a Financial Analyst"
    if noun == "offer" and preposition == "from" and lemma == "accept":
        return "works_at"  # "accepted an offer from Airbnb"
    if noun in JOBS and preposition in ("at", "with", "for", "in"):
        return "left" if lemma in ("lose", "quit", "leave") else "works_at"  # "lost my job at X"
    if lemma == "be" and link and (lemma, link) not in _MAPPED:
        return link if link not in _BARE_LINKS else None  # "I'm grateful for X": grateful_for
    for key in ((lemma, link), (lemma, "*")):
        if key in _MAPPED:
            return _MAPPED[key]
    name = f"{lemma}_{link}" if link else lemma
    if lemma in _VAGUE or name in _VAGUE or not lemma.isalpha():
        return None
    return None if link is None and lemma in _VAGUE_ALONE else name


def light_sense(predicate: str, words: set[str]) -> str:
    """What a light verb means with the words of its object: "I got a puppy" has one (also "a
    cat named Luna"), "I do yoga" does it; any other predicate as it is.

    >>> light_sense("get", {"puppy"}), light_sense("do", {"yoga"}), light_sense("get", {"chance"})
    ('has', 'does', 'get')
    """
    if predicate == "get" and words & GOTTEN:
        return "has"
    if predicate == "do" and words & HOBBIES:
        return "does"
    return predicate
