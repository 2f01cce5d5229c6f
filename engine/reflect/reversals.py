"""A speaker's reversal of a taste read from its wording: "I no longer like running", "I don't
like cold brew anymore", "I'm over country music", "I gave up coffee", "horror movies give me
nightmares now, I can't watch them anymore"; a taste come ("I've started to like mushrooms");
someone lost or left ("Luna passed away",
"Marco and I broke up"); a thing moved off another ("we migrated Atlas from Postgres to MySQL"). spaCy's small model misparses just these sentences ("like" read as a
preposition after "no longer", "brew" as a verb), and a reversal read wrongly leaves the old
taste active, so the wording is read directly. Pure over a parsed sentence.
"""

from __future__ import annotations

from typing import Any

from engine.reflect.patterns import Patterns
from engine.reflect.phrases import phrase
from engine.reflect.vocabulary import JOBS, Statement, by_rule
from engine.reflect.word_lists import WordLists
from engine.reflect.worth_words import PETS

_WORDS = WordLists("reversals")
_PATTERNS = Patterns("reversals")

__all__ = ["reversal", "reversals"]

_VERBS = {"like": "likes", "love": "likes", "enjoy": "likes"}
_REVERSAL = _PATTERNS("reversal")
_ENDED = _PATTERNS("ended")
_NOT_SINCE = _PATTERNS("not_since")
_GONE = _PATTERNS("gone")
_STOPPED = _PATTERNS("stopped")
_NO_LONGER_AT = _PATTERNS("no_longer_at")
_COME_TO = _PATTERNS("come_to")
_MOVED = _PATTERNS("moved")
_LOST = _PATTERNS("lost")
_PETS = PETS | {"bird", "fish"}  # a pet lost: "my fish died" (a fish one has may be dinner)
_BROKE_UP = _PATTERNS("broke_up")
_NOT_OBJECTS = _WORDS("not_objects")
_WHEN = _PATTERNS("when")
_FOR_NOW = _PATTERNS("for_now")
_MOST_WORDS = 4


def reversal(text: str) -> tuple[str, bool, str, int] | None:
    """(predicate, negated, object as written, where the object starts) of the taste a
    sentence says has ended: a liking negated, or a habit quit.

    >>> reversal("I no longer like running.")
    ('likes', True, 'running', 17)
    >>> reversal("Actually I don't like cold brew anymore, it is too bitter.")
    ('likes', True, 'cold brew', 22)
    >>> reversal("I don't like cold brew.") is None  # a dislike, not a change
    True
    >>> reversal("I don't like it anymore.") is None  # what "it" is the sentence does not say
    True
    >>> reversal("I gave up coffee, it was wrecking my sleep."), reversal("I've stopped eating meat.")
    (('quit', False, 'coffee', 10), ('quit', False, 'meat', 20))
    >>> reversal("I'm over country music, it all sounds the same."), reversal("I can't handle spicy food anymore.")
    (('likes', True, 'country music', 9), ('likes', True, 'spicy food', 15))
    >>> reversal("I switched to green tea, I don't drink coffee anymore."), reversal("I don't drink coffee.")
    (('quit', False, 'coffee', 39), None)
    >>> reversal("No longer at Meta, I joined OpenAI."), reversal("I'm not at Google anymore.")
    (('left', False, 'Meta', 13), ('left', False, 'Google', 11))
    >>> reversal("I gave up golf and took up cycling."), reversal("I went vegan, so no more cheese for me.")
    (('quit', False, 'golf', 10), ('likes', True, 'cheese', 25))
    >>> reversal("I've actually started to like mushrooms!")
    ('likes', False, 'mushrooms', 30)
    >>> reversal("Doctor told me to cut out caffeine, so I haven't had coffee in a month.")
    ('quit', False, 'coffee', 53)
    >>> reversal("I stopped at a cafe for lunch."), reversal("I'm done with work for today.")
    (None, None)
    >>> reversal("It's been a long time coming, and I'm over the moon about it!") is None  # glad
    True
    >>> reversal("I quit Google last year.") is None, reversal("I quit my job last week.") is None  # a job left
    (True, True)
    >>> reversal("I gave up coffee last month.")
    ('quit', False, 'coffee', 10)
    """
    found = _REVERSAL.search(text)
    if found is not None and (found["longer"] or found["anymore"]):
        predicate, negated = _VERBS[found["verb"].lower()], True
    elif (found := _ENDED.search(text)) is not None or (found := _NOT_SINCE.search(text)) is not None or (
        (found := _STOPPED.search(text)) is not None and (found["longer"] or found["anymore"])
    ):
        predicate, negated = "quit", False
    elif (found := _GONE.search(text)) is not None:
        predicate, negated = "likes", True
    elif (found := _COME_TO.search(text)) is not None:
        predicate, negated = "likes", False
    elif (left := _NO_LONGER_AT.search(text)) is not None:
        name = left["object"] or left["anymore"]
        return "left", False, name, left.start("object") if left["object"] else left.start("anymore")
    else:
        return None
    if _FOR_NOW.search(found["object"]):
        return None  # "I'm done with work for today": for now, not for good
    thing = _WHEN.sub("", found["object"])  # "I quit coffee last week": coffee
    words, start = thing.split(), found.start("object")
    if len(words) > 1 and words[0].lower() in ("my", "our", "the", "some", "all", "a", "an"):
        start = text.index(words[1], start)
        words = words[1:]  # "I ditched my iPhone"
    if not words or len(words) > _MOST_WORDS or words[0].lower() in _NOT_OBJECTS or JOBS & {w.lower().removesuffix('s') for w in words}:
        return None  # "I quit my job": a job left, which the parse reads
    return predicate, negated, " ".join(words), start


_OF_IT = _PATTERNS("of_it")


def _referred(sentence: Any) -> Statement | None:
    """The taste ended of the thing an earlier clause of the sentence is about."""
    said = _OF_IT.search(sentence.text)
    if said is None:
        return None
    before = sentence.start_char + said.start()
    thing = next((t for t in sentence if t.idx < before and t.dep_ == "nsubj" and t.pos_ in ("NOUN", "PROPN")), None)
    if thing is None:
        return None
    text, key = phrase(thing)
    if thing.pos_ != "PROPN" and text[:1].isupper():
        text = text[:1].lower() + text[1:]  # "Horror movies give me ...": capitalised as the sentence's first word
    return Statement(subject_kind="speaker", subject="I", predicate="likes", object=text, object_key=key,
                     negated=True, sentence=sentence.text.strip())  # fmt: skip


def _ended_with(sentence: Any) -> Statement | None:
    """Someone lost ("Luna passed away", "my cat died": `lost`) or left ("Marco and I broke
    up": `broke_up_with`); a name must be one, and "my" the speaker's own."""
    if (broke := _BROKE_UP.search(sentence.text)) is not None:
        predicate, name = "broke_up_with", broke["object"] or broke["with"]
    elif (lost := _LOST.search(sentence.text)) is not None:
        predicate, name = "lost", lost["object"]
        words = name.split()
        token = next((t for t in sentence if t.text == words[-1]), None)
        mine = words[0].lower() == "my" and len(words) == 2 and words[1].lower() in _PETS
        if token is None or not (token.pos_ == "PROPN" or mine):
            return None  # "Sadly" is no one, "my neighbor's cat" is not the speaker's, "my grandma" is hers
        name = words[-1]
    else:
        return None
    return Statement(subject_kind="speaker", subject="I", predicate=predicate, object=name, object_key=name.lower(),
                     sentence=sentence.text.strip())  # fmt: skip


def _moved(sentence: Any) -> list[Statement]:
    """"We migrated Atlas from Postgres to MySQL": Atlas uses MySQL and dropped Postgres."""
    moved = _MOVED.search(sentence.text)
    if moved is None:
        return []
    return [Statement(subject_kind="named", subject=moved["name"], predicate=predicate, object=moved[part],
                      object_key=moved[part].lower(), sentence=sentence.text.strip())
            for predicate, part in (("uses", "new"), ("dropped", "old"))]  # fmt: skip


def reversals(sentence: Any, found: list[Statement]) -> list[Statement]:
    """The reversal the wording states, unless the parse already read it so."""
    read = reversal(sentence.text)
    if read is None:
        referred, ended = _referred(sentence), _ended_with(sentence)
        return (by_rule("en.reversal_referred", [referred] if referred else [])
                + by_rule("en.ended_with", [ended] if ended else []) + by_rule("en.moved", _moved(sentence)))  # fmt: skip
    if any(s.negated == read[1] and s.predicate == read[0] for s in found):
        return []
    predicate, negated, text, start = read
    tokens = [t for t in sentence if t.idx >= sentence.start_char + start][: len(text.split())]
    key = " ".join(t.lower_ if t.text[:1].isupper() else t.lemma_.lower() for t in tokens)
    return [Statement(subject_kind="speaker", subject="I", predicate=predicate, object=text, object_key=key,
                      negated=negated, sentence=sentence.text.strip(), rule="en.reversal")]  # fmt: skip
