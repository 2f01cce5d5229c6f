"""How a clause hangs on the one around it, where spaCy's small parser leaves it unsaid: the
noun a relative clause describes, the control verb a bare conjunct continues, a future or a
mere possibility, a wh-word that asks nothing, advice, a time yet to come, a choice not yet
made, a deed one was too tired for or looks forward to, a habit of the past, a name the next
sentence gives, a turn of phrase, and a capitalised name the parser took for a verb. Pure
functions of a parsed token (or of a statement and the sentence after it), for
`engine/reflect/statements.py`."""

from __future__ import annotations

from typing import Any

from engine.reflect.patterns import Patterns
from engine.reflect.phrases import NOUNS, is_thing
from engine.reflect.statement_cues import CONTROL, MODALS
from engine.reflect.vocabulary import Statement
from engine.reflect.word_lists import WordLists
from engine.reflect.worth_words import GOTTEN, KIN

_WORDS = WordLists("clauses")
_PATTERNS = Patterns("clauses")

__all__ = [
    "able_later", "advised", "antecedent", "asks_nothing", "cannot_wait", "controller", "looking_forward", "misread_name",
    "moved_to", "says_will", "speaking_of", "too_much", "undecided", "used_to", "with_listener", "with_name",
    "yet_to_come",
]  # fmt: skip


def says_will(verb: Any) -> bool:
    """"I'll try Helm", "we will visit Kyoto": a plan, of what one plans (`PLANNED`); also a
    bare verb joined to one ("I'll start to think of a drama and publish my screenplay")."""
    heads = [verb]
    while heads[-1].dep_ in ("conj", "xcomp") and heads[-1].tag_ == "VB" and verb.dep_ == "conj":
        heads.append(heads[-1].head)
    return any(c.dep_ == "aux" and c.lower_ in ("will", "'ll", "wo") for head in heads for c in head.children)


def antecedent(clause: Any) -> Any:
    """The noun a relative clause describes: the one right before it where the parser hung it
    further back ("resources and tutorials on the techniques I learned" learned techniques)."""
    start = min(t.i for t in clause.subtree)
    before = clause.doc[start - 1] if start > 0 else clause.head
    pronoun = clause.doc[start].tag_ in ("WDT", "WP")  # "a quote by J.K. Rowling that I like": the quote
    further = not pronoun and before.pos_ in NOUNS and before.i > clause.head.i and is_thing(clause.head)
    return before if further else clause.head  # "a couple of poses I enjoy": no thing


def controller(verb: Any) -> str | None:
    """The control verb a bare infinitive continues, the parser having made it a conjunct of
    that verb or of its complement: "planning to explore the city, try out cuisines"."""
    if any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children):
        return None  # "I want to ..., and I will achieve my goal": a clause of its own
    head = verb.head
    while head.dep_ == "conj" and head.tag_ == "VB":  # "..., try out cuisines and collaborate with"
        head = head.head
    if head.dep_ == "xcomp":
        head = head.head
    if any(c.dep_ == "cc" and c.lower_ in ("so", "but", "yet") for c in head.children):
        return None  # "I love to help, so just shoot me a question": a clause of its own
    return str(head.lemma_) if head.lemma_ in CONTROL and any(c.dep_ == "xcomp" for c in head.children) else None


def able_later(verb: Any) -> bool:
    """"we will be able to watch", "I might be able to come": what may be, not what is."""
    if verb.dep_ != "xcomp" or verb.head.lemma_ != "able":
        return False
    be = verb.head.head if verb.head.dep_ == "acomp" else verb.head
    return says_will(be) or any(c.dep_ == "aux" and c.lower_ in MODALS for c in be.children)


def misread_name(token: Any) -> bool:
    """"I play CS:GO, Valorant and Overwatch": a capitalised word inside a clause is a name
    the parser took for a verb (a sentence, or a speaker's turn after "Name:", may open with
    a verb)."""
    return (token.text[:1].isupper() and not token.is_sent_start and token.lower_ != "i"
            and token.nbor(-1).text not in (":", '"', "“", "(", "-", "—", "…"))  # fmt: skip


def undecided(verb: Any) -> bool:
    """"We're still deciding on the destination", "trying to decide", "which brands I choose",
    "I'm deciding between X and Y": a choice still to be made, of nothing chosen yet."""
    if verb.lemma_ not in ("decide", "choose", "pick"):
        return False
    if verb.tag_ == "VBG" and any(c.dep_ == "aux" and c.lemma_ == "be" for c in verb.children):
        return True
    around = [*verb.subtree, *(verb.head.children if verb.dep_ in ("relcl", "pcomp", "xcomp") else ())]
    return verb.head.lemma_ == "try" or any(t.lower_ in ("which", "what", "whether") for t in around)


def too_much(verb: Any) -> bool:
    """"I'm too lazy to research alternative pets", "too tired to go to the gym": not done."""
    head = verb.head
    return verb.dep_ == "xcomp" and head.pos_ == "ADJ" and any(c.lower_ == "too" for c in head.children)


def used_to(verb: Any) -> bool:
    """"I used to love jazz", "back when I used to be able to hold and squeeze animals": what
    was so and is no longer; not "I used my savings to buy a car"."""
    token = verb
    while token.dep_ in ("xcomp", "conj", "acomp") and token.head.i != token.i:
        token = token.head
        if token.lemma_ == "use" and token.tag_ == "VBD":
            return not any(c.dep_ == "dobj" for c in token.children)
    return False


_EAGER = _WORDS("eager")


def looking_forward(verb: Any) -> bool:
    """"I'm so excited to watch this new show", "we're thrilled to visit Kyoto": what one looks
    forward to now is still to come; "I was so excited to explore Shinjuku" went."""
    glad = verb.head
    return (
        verb.dep_ == "xcomp" and glad.lemma_.lower() in _EAGER
        and glad.head.lemma_ == "be" and glad.head.tag_ in ("VBP", "VBZ")
    )  # fmt: skip


def asks_nothing(verb: Any) -> bool:
    """A wh-word before a clause that asks no question: the skill learnt in "learning how to
    play the piano", "taught myself how to knit", and the news after "Guess what - I got a
    puppy" (as against "I love how you tell stories")."""
    if verb.dep_ == "ccomp" and verb.head.lemma_ == "guess":
        return any(c.lower_ == "what" and c.i == verb.head.i + 1 for c in verb.children)
    return (verb.dep_ == "xcomp" and verb.head.lemma_ in ("learn", "teach")
            and any(c.lower_ == "to" for c in verb.children) and any(c.lower_ == "how" for c in verb.children))


_NAME_GIVEN = _PATTERNS("name_given")


def with_name(statement: Statement, sentence: str) -> Statement:
    """A pet or a relative had, with the next sentence when it names them ("Her name's Coco").

    >>> had = Statement(subject_kind="speaker", subject="I", predicate="has", object="puppy", object_key="puppy",
    ...                 sentence="I got a puppy!")
    >>> with_name(had, "Her name's Coco.").sentence, with_name(had, "His name is on the list.").sentence
    ("I got a puppy! Her name's Coco.", 'I got a puppy!')
    """
    if statement.predicate not in ("has", "adopt") or statement.object_key not in GOTTEN | KIN:
        return statement
    if _NAME_GIVEN.match(sentence) is None:
        return statement
    return statement.model_copy(update={"sentence": f"{statement.sentence} {sentence.strip()}"})


def advised(verb: Any) -> bool:
    """"I recommend exercising", "I'd suggest trying yoga": advice to another, not a deed."""
    return verb.dep_ in ("xcomp", "dobj", "ccomp") and verb.head.lemma_ in ("recommend", "suggest", "advise")


_WHEN = _WORDS("when")


def yet_to_come(verb: Any) -> bool:
    """A clause of the time at which something will be done: "I'll let you know once I'm
    done reading it", "we'll celebrate when I finish the thesis"."""
    token = verb
    while token.head.i != token.i and not any(c.dep_ in ("mark", "advmod") and c.lower_ in _WHEN for c in token.children):
        token = token.head
    if not any(c.lower_ in _WHEN and c.i < token.i for c in token.children) or token.head.i == token.i:
        return False
    return any(says_will(head) for head in token.ancestors)


def speaking_of(verb: Any) -> bool:
    """"Speaking of, my partner and I ...": a turn of phrase, not a statement."""
    following = verb.nbor(1) if verb.i + 1 < len(verb.doc) else None
    return verb.lower_ == "speaking" and following is not None and following.lower_ == "of"


def cannot_wait(verb: Any) -> bool:
    """"I can't wait for our hike": looking forward, not a refusal to wait."""
    children = {c.lower_ for c in verb.children}
    return verb.lemma_ == "wait" and bool(children & {"ca", "can", "cannot"}) and bool(children & {"n't", "not", "cannot"})


_CHANGES = _WORDS("changes")
_REPLACING = _WORDS("replacing")
_PEOPLE_MOVED = _WORDS("people_moved")


def moved_to(verb: Any) -> Any | None:
    """Where a thing was moved or what replaced it, when that is a name: "I moved my blog from
    WordPress to Hugo", "we moved the jobs over to Airflow", "we replaced Trello with Linear"
    (the speaker now uses Hugo, Airflow, Linear). None when nothing is moved ("we moved to
    Denver": a home), when what moves is someone ("moved my mom to a care home"), or when the
    destination is a time ("moved the call to Friday")."""
    moved = [c for c in verb.children if c.dep_ == "dobj" and is_thing(c) and c.pos_ != "PRON"
             and c.ent_type_ != "PERSON" and c.lemma_.lower() not in KIN | _PEOPLE_MOVED]  # fmt: skip
    if not moved:
        return None
    links = ("to",) if verb.lemma_ in _CHANGES else ("with", "for") if verb.lemma_ in _REPLACING else ()
    heads = [verb, *(c for c in verb.children if c.dep_ in ("prt", "advmod"))]  # "moved ... over to"
    return next((o for head in heads for p in head.children if p.dep_ == "prep" and p.lower_ in links
                 for o in p.children if o.dep_ == "pobj" and o.pos_ == "PROPN" and is_thing(o)), None)  # fmt: skip


def with_listener(verb: Any) -> bool:
    """A wish made with the other party: "I'd love to grab coffee sometime and talk through
    your thesis", "I want to go hiking with you": an invitation, not a fact about the speaker."""
    return any(t.lower_ in ("you", "your", "yours") for t in verb.subtree)
