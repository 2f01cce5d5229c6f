"""Noun phrases in spaCy's parse: which head names a thing, and its words. Pure over tokens.

"my two kids" is kids, "a great personal milestone" is personal milestone, "some of my favorite
treats" means the treats; "it", "a lot", "a pic" and "my mood" name nothing worth a fact.
"""

from __future__ import annotations

from typing import Any

from engine.reflect.word_lists import WordLists

_WORDS = WordLists("phrases")

__all__ = [
    "NOUNS", "SUBJECTS", "is_thing", "less_of", "modifiers", "of_the_other", "phrase", "pointed_at",
    "what_is_meant", "with_conjuncts",
]  # fmt: skip

_EMPTY_HEADS = _WORDS("empty_heads")
_VAGUE_BARE = _WORDS("vague_bare")
_QUANTITIES = _WORDS("quantities")
_FELT_OF = _WORDS("felt_of")
_EVALUATIVE = _WORDS("evaluative")
_GLUE = _WORDS("glue")
SUBJECTS = ("nsubj", "nsubjpass")  # the dependency labels of a clause's subject
_MODIFIERS = _WORDS("modifiers")
NOUNS = _WORDS("nouns")


def phrase(head: Any) -> tuple[str, str]:
    """(text, lemma key) of a noun phrase: compounds and descriptive adjectives before the head,
    without determiners, possessives or counts ("my two kids" -> "kids", "kid")."""
    kept = sorted({t.i: t for t in [*modifiers(head), head, *_glued(head), *_title_rest(head)]}.values(),
                  key=lambda t: t.i)  # fmt: skip
    text = "".join(t.text + _space_after(t, kept) for t in kept).strip()
    # Names keep their spelling: the small model lemmatises "Postgres" to "postgre" as a noun.
    key = "".join((t.lower_ if t.pos_ == "PROPN" or t.text[:1].isupper() else t.lemma_.lower())
                  + _space_after(t, kept) for t in kept).strip()  # fmt: skip
    return text, key


def _title_rest(head: Any) -> list[Any]:
    """The rest of a name of the form "X of (the) Y": "of the Rings" of "Lord", "of Thrones"
    of "Game" when capitalised; nothing for "Paris of the north"."""
    prep = next((c for c in head.children if c.dep_ == "prep" and c.lower_ == "of" and c.i == head.i + 1), None)
    if prep is None or not head.text[:1].isupper():
        return []
    name = next((c for c in prep.children if c.dep_ == "pobj"), None)
    if name is None or name.pos_ != "PROPN" or not name.text[:1].isupper():
        return []
    between = list(head.doc[prep.i + 1 : name.i])
    if any(t.dep_ not in ("det", "compound", "amod") for t in between):
        return []
    return [prep, *between, name]


def _glued(head: Any) -> list[Any]:
    """The words joined to a word by a symbol without spaces: "DC" of "AC/DC", "GO" of
    "CS:GO", "dairy" of "dairy-free"."""
    found, doc = [], head.doc
    i = head.i
    while (i + 2 < len(doc) and not doc[i].whitespace_ and doc[i + 1].text in _GLUE
           and not doc[i + 1].whitespace_ and doc[i + 2].is_alpha):  # fmt: skip
        found.append(doc[i + 2])
        i += 2
    i = head.i
    while i - 2 >= 0 and not doc[i - 1].whitespace_ and doc[i - 1].text in _GLUE and not doc[i - 2].whitespace_:
        found.append(doc[i - 2])
        i -= 2
    return found


def _space_after(token: Any, kept: list[Any]) -> str:
    """"AC/DC", "Crumb&Co": a word joined to the next kept one by a symbol stays joined."""
    following = token.nbor(1) if token.i + 1 < len(token.doc) else None
    if following is not None and not token.whitespace_ and following.is_punct and not following.whitespace_:
        if any(t.i == token.i + 2 for t in kept):
            return str(following.text)
    return " "


def modifiers(head: Any) -> list[Any]:
    """The words before a noun that say which one: "personal" in "a great personal milestone"."""
    found = []
    for t in head.lefts:
        if t.dep_ in _MODIFIERS and (t.is_alpha or t.pos_ == "PROPN") and not {t.lower_, t.lemma_.lower()} & _EVALUATIVE:
            # "Harry Potter party": a compound keeps its own compounds
            found += [*(modifiers(t) if t.dep_ == "compound" else []), *_glued(t), t]
    return found


def is_thing(token: Any) -> bool:
    named = token.pos_ in NOUNS or (token.pos_ == "NUM" and not token.like_num) or _capitalised_object(token)
    return (
        named
        and token.lower_ not in _EMPTY_HEADS
        and not (token.lemma_.lower() in _VAGUE_BARE and not modifiers(token) and not _title_rest(token))
        and token.ent_type_ not in ("DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT")
        and token.is_alpha
        and (len(token.text) > 2 or token.text.isupper())
    )


def pointed_at(thing: Any) -> bool:
    """"this genre", "that mix", "a movie I really enjoy": a common noun that names one thing
    only by pointing at it, so that a liking or a choice of it tells no taste ("I love movies"
    does)."""
    if thing.pos_ != "NOUN":
        return False
    determiners = {c.lower_ for c in thing.children if c.dep_ == "det"}
    if determiners & {"this", "that", "these", "those"}:
        return not modifiers(thing)
    described = any(c.dep_ == "relcl" for c in thing.children)
    named = any(t.pos_ == "PROPN" for t in thing.subtree)
    return described and bool(determiners & {"a", "an", "another"}) and not named


def of_the_other(thing: Any) -> bool:
    """"your painting", "a painting of yours", "their work": someone else's; "their design and
    engineering": both."""
    if thing.dep_ == "conj" and of_the_other(thing.head):
        return True
    return any(
        (c.dep_ == "poss" and c.lower_ in ("your", "their", "his", "her"))
        or (c.dep_ == "prep" and c.lower_ == "of" and any(o.lower_ == "yours" for o in c.children))
        for c in thing.children
    )  # fmt: skip


def less_of(thing: Any) -> bool:
    """"less processed food", "fewer sodas" (and what is coordinated with them): less of it."""
    first = thing.head if thing.dep_ == "conj" else thing
    return any(t.lower_ in ("less", "fewer") for t in first.subtree if t.i < first.i)


def _capitalised_object(token: Any) -> bool:
    """"I speak Portuguese and German", "we use DuckDB": the tagger reads some names as an
    adjective or a number ("my favorite band is Radiohead"); as an object and capitalised,
    they name a thing."""
    return (
        token.pos_ in ("ADJ", "NUM") and token.dep_ in ("dobj", "conj", "pobj", "acomp", "attr")
        and token.text[:1].isupper() and not token.like_num and token.i != token.sent.start
    )  # fmt: skip


def what_is_meant(token: Any) -> Any:
    """"some of my treats" means the treats, "the rush of fast cars" the cars, "a game called
    FIFA" means FIFA."""
    if token.lower_ in _QUANTITIES | _FELT_OF:
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
        if (child.dep_ == "conj" and (child.pos_ in NOUNS or _capitalised_object(child))
                and child.lower_ not in _EMPTY_HEADS and not _subject_of_what_follows(child)):  # fmt: skip
            found += with_conjuncts(child)  # not "the studio and things (are looking up)"
    return found


def _subject_of_what_follows(conjunct: Any) -> bool:
    """Whether a conjunct of an object is in fact the subject of the clause right after it,
    a verb the parser left without one: "drove through the Parkway and the glaciers and
    lakes were gorgeous" (not "bought apples and pears and ate them", nor "play CS:GO, Valorant
    and Overwatch", where the "and" ends the conjunct and the tagger took a name for a verb)."""
    after = conjunct.right_edge.i + 1
    if after >= len(conjunct.doc) or conjunct.right_edge.dep_ in ("cc", "punct"):
        return False
    verb = conjunct.doc[after]
    return (verb.pos_ in ("VERB", "AUX") and verb.dep_ == "conj"
            and not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in verb.children))  # fmt: skip
