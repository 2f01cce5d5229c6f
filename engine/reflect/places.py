"""Where the speaker works, lives and went, said without "I work at", "I live in" or "I went
to": "My employer is Accenture", "I'm at Deloitte now" (of a job), "I'm joining Netflix as a
data scientist", "I run the marketing team at Canva", "Home is Edinburgh now", "we bought a
house in Sacramento", "I took my family on a road trip to Jasper"; and a workplace left: "I
handed in my notice at Spotify", "I resigned from Google", "I got laid off from Canva". Pure
over a parsed sentence.
"""

from __future__ import annotations

from typing import Any

from engine.reflect.phrases import phrase
from engine.reflect.vocabulary import Statement
from engine.reflect.word_lists import WordLists

_WORDS = WordLists("places")

__all__ = ["places"]

_JOB_WORDS = _WORDS("job_words")
_EMPLOYER = _WORDS("employer")
_LEADS = _WORDS("leads")
_TEAMS = _WORDS("teams")
# verb (or passive participle) and preposition that leave a workplace
_LEAVES = {("resign", "from"), ("laid", "from"), ("fire", "from"), ("let", "from")}


def places(sentence: Any) -> list[Statement]:
    """The speaker's workplaces (`works_at`), the ones left (`left`), home (`lives_in`) and
    where a trip went (`attended`) in a sentence.

    >>> from engine.nlp import parse_english
    >>> def read(text):
    ...     return [(s.predicate, s.object) for s in places(next(parse_english([text])[0].sents))]
    >>> read("My employer is Accenture."), read("I switched to a new company, I'm at Deloitte now.")
    ([('works_at', 'Accenture')], [('works_at', 'Deloitte')])
    >>> read("I'm joining Netflix as a data scientist."), read("I run the marketing team at Canva.")
    ([('works_at', 'Netflix')], [('works_at', 'Canva')])
    >>> read("I handed in my notice at Spotify."), read("I got laid off from Canva.")
    ([('left', 'Spotify')], [('left', 'Canva')])
    >>> read("I'm at Starbucks now."), read("My brother's employer is Accenture.")
    ([], [])
    >>> read("Home is Edinburgh now, we moved in March."), read("My home is Lisbon.")
    ([('lives_in', 'Edinburgh')], [('lives_in', 'Lisbon')])
    >>> read("We finally left San Francisco and bought a house in Sacramento.")
    [('lives_in', 'Sacramento')]
    >>> read("I took my family on a road trip to Jasper."), read("I'm planning a trip to Boston.")
    ([('attended', 'Jasper')], [])
    """
    words = {t.lower_ for t in sentence}
    found = []
    for token in sentence:
        if token.dep_ not in ("attr", "nsubj", "dobj", "pobj") or (token.pos_ != "PROPN" and not _notice_at(token)):
            continue
        head = token.head if token.dep_ != "pobj" else token.head.head
        link = token.head.lower_ if token.dep_ == "pobj" else None
        if link == "to" and head.lemma_ in _TRIPS:
            if _taken(head):
                found.append(_statement("attended", token, sentence))
            continue
        if _home(token, head) and _speaker_is_subject(head, we=True):  # "we moved" is the speaker's home too
            found.append(_statement("lives_in", token, sentence))
            continue
        if not _speaker_is_subject(head):
            continue
        if _works_at(token, head, link, words):
            found.append(_statement("works_at", token, sentence))
        elif _leaves(head, link):
            found.append(_statement("left", token, sentence))
    return found


_HOMES = _WORDS("homes")
_TRIPS = _WORDS("trips")


def _taken(trip: Any) -> bool:
    """"I took my family on a road trip to Jasper", "we went on a trip to Japan": a trip
    made, not one planned ("planning a trip to the East Coast")."""
    verb = trip.head.head if trip.dep_ == "pobj" else trip.head
    return verb.tag_ == "VBD" and _speaker_is_subject(verb, we=True)


def _home(name: Any, head: Any) -> bool:
    """"Home is Edinburgh now", "my home is Lisbon", "we bought a house in Sacramento"."""
    if head.lemma_ in ("buy", "rent") and name.dep_ == "pobj" and name.head.lower_ == "in":
        return any(c.dep_ == "dobj" and c.lemma_ in _HOMES for c in head.children)
    return head.lemma_ == "be" and name.dep_ == "attr" and any(
        c.dep_ == "nsubj" and c.lemma_ == "home" and all(p.lower_ == "my" for p in c.children if p.dep_ == "poss")
        for c in head.children
    )


def _works_at(name: Any, head: Any, link: str | None, words: set[str]) -> bool:
    if head.lemma_ == "be" and name.dep_ in ("attr", "nsubj"):
        # "My employer is Accenture", "Accenture is my employer"
        other = [c for c in head.children if c.dep_ in ("attr", "nsubj") and c.i != name.i]
        return any(c.lemma_ in _EMPLOYER and _mine(c) for c in other)
    if head.lemma_ == "be" and link == "at":
        return any(c.lower_ == "now" for c in head.children) and bool(words & _JOB_WORDS)
    if head.lemma_ == "join" and name.dep_ == "dobj":
        return any(c.dep_ == "prep" and c.lower_ == "as" for c in head.children)  # a role there
    if head.lemma_ in _LEADS and link == "at":
        return any(c.dep_ == "dobj" and c.lemma_ in _TEAMS for c in head.children)
    return False


def _notice_at(place: Any) -> bool:
    """"gave my notice at the warehouse": a workplace left needs no name."""
    verb = place.head.head
    return place.dep_ == "pobj" and place.head.lower_ == "at" and any(
        c.dep_ == "dobj" and c.lemma_ == "notice" for c in verb.children
    )


def _leaves(head: Any, link: str | None) -> bool:
    if link == "at" and any(c.dep_ == "dobj" and c.lemma_ == "notice" for c in head.children):
        return True  # "handed in my notice at Spotify", "gave my notice at the warehouse"
    return (head.lemma_, link) in _LEAVES or (head.lower_, link) in _LEAVES


def _mine(noun: Any) -> bool:
    return any(c.dep_ == "poss" and c.lower_ == "my" for c in noun.children)


def _speaker_is_subject(verb: Any, *, we: bool = False) -> bool:
    """"I ..." (or "we ...", for a home) or a clause whose subject is "my employer" or
    "home"; another's ("my brother's") not."""
    subjects = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
    if any(s.lemma_ == "home" for s in subjects):
        return True  # "Home is Edinburgh now": _home checks whose
    if not subjects and verb.dep_ in ("conj", "advcl", "dep") and verb.head.i != verb.i:
        return _speaker_is_subject(verb.head, we=we)  # "I'm joining Netflix ..., already handed in my notice"
    speakers = ("i", "we") if we else ("i",)
    return any(s.lower_ in speakers or (s.lemma_ in _EMPLOYER and _mine(s)) for s in subjects) or (
        not subjects and verb.dep_ == "ROOT" and verb.tag_ == "VBD"  # "Handed in my notice at X"
    )


def _statement(predicate: str, name: Any, sentence: Any) -> Statement:
    text, key = phrase(name)
    return Statement(subject_kind="speaker", subject="I", predicate=predicate, object=text, object_key=key,
                     sentence=sentence.text.strip())  # fmt: skip
