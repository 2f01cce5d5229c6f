"""When an English clause states nothing, and why; else who it is about, the verb that
carries its object and the control verb that names its predicate (`Reading`). Each refusal is
named, and declared with what it refuses and its examples in `engine/rules/refusals.toml`,
which tests/test_refusals.py runs: read through a control verb, a habit of the past, no
subject one can name, a clause embedded in a condition, a question or reported speech, said
of everyone, the speaker made or asked to do it, said to the other party, what a thing is to
the speaker, not done yet, a need with no plan, a plan to leave, a hope, when and not what,
what may or should be, a talk wished for, an invitation, none of them. Pure over spaCy's
parse, for `engine.reflect.statements`."""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.reflect.clauses import (
    able_later,
    advised,
    antecedent,
    asks_nothing,
    cannot_wait,
    controller,
    looking_forward,
    says_will,
    speaking_of,
    too_much,
    undecided,
    used_to,
    with_listener,
    yet_to_come,
)
from engine.reflect.phrases import NOUNS, SUBJECTS
from engine.reflect.statement_cues import (
    ASPECT,
    CAUSATIVE,
    CHOOSING,
    CONDITIONS,
    CONTROL,
    INTENT,
    MODALS,
    PLANNED,
    QUESTION_WORDS,
    REPORT,
    REQUEST,
    SPEECH,
    WISH,
)
from engine.reflect.subjects import says_i_without_saying_it, subject_of, who_is
from engine.reflect.word_lists import WordLists

__all__ = ["Reading", "negated", "read_clause"]

_WORDS = WordLists("refusals")
_WISHES = _WORDS("wishes")
_INVITING = _WORDS("inviting")
_EVERYONE = _WORDS("everyone")  # "we all", "we both"
_OBJECT_PRONOUNS = _WORDS("object_pronouns")  # "it helps me relax"
_OURS = _WORDS("ours")  # "Dance is my stress relief"
_LEAVING = _WORDS("leaving")  # "decided to quit my job"
_WOULD = _WORDS("would")  # "I'd love to": a wish
_NONE = _WORDS("none")  # "any exercises I like", "no book I'd read"


class Reading(NamedTuple):
    """What a clause that states something is about: who (kind, name), the verb that carries
    its object, the control verb that names its predicate ("plan", "want", "like" or ""), and
    whether it is said of the future."""

    who: tuple[str, str]
    content: Any
    control: str
    future: bool


def read_clause(verb: Any) -> Reading | str:
    """The reading of the clause `verb` heads, or the name of the refusal that says it states
    nothing."""
    refused = _before_subject(verb)
    if refused:
        return refused
    subject = subject_of(verb)
    if subject is None:
        who = ("speaker", "I") if says_i_without_saying_it(verb) else None
    else:
        who = who_is(subject)
    if who is None:
        return "no_subject"
    if _embedded(verb):
        return "embedded"
    refused = _of_subject(verb, subject, who[0])
    if refused:
        return refused
    content, control = _content_verb(verb)
    if undecided(verb) or undecided(content) or too_much(verb) or advised(verb) or yet_to_come(verb):
        return "not_done"  # "still deciding on", "too lazy to research it", "I recommend X-ing", "once I'm done"
    controlled = _control(verb, content, control)
    if isinstance(controlled, str):
        return controlled
    control, future = controlled
    if content.i != verb.i and content.lemma_ in SPEECH and control in _WISHES:
        return "talk_wished"  # "I'd like to chat about my studies", "I want to discuss my budget"
    if control in _INVITING and content.i != verb.i and with_listener(verb):
        return "invitation"  # "I'd love to grab coffee and talk through your thesis"
    if verb.dep_ == "relcl" and any(c.lower_ in _NONE for c in antecedent(verb).children):
        return "none_of_them"  # "haven't found any exercises I like": none is liked
    return Reading(who=who, content=content, control=control, future=future)


def _before_subject(verb: Any) -> str | None:
    if verb.dep_ == "xcomp" and (verb.head.lemma_ in CONTROL | ASPECT or cannot_wait(verb.head)):
        return "through_control"  # read through its control verb
    if used_to(verb):
        return "used_to"  # "I used to love jazz", "when I used to be able to hold animals": no longer so
    if verb.lemma_ == "use" and verb.tag_ == "VBD" and any(c.dep_ == "xcomp" for c in verb.children):
        return "used_to"  # "the conversations we used to have": a habit of the past, not a tool
    if speaking_of(verb):
        return "speaking_of"  # "Speaking of, my partner and I ...": a turn of phrase
    return None




def _of_subject(verb: Any, subject: Any, kind: str) -> str | None:
    """Refusals by the subject and what the verb says of it."""
    if subject is not None and subject.lower_ == "we" and any(c.lower_ in _EVERYONE for c in subject.children):
        return "everyone"  # "we all make mistakes": said of everyone
    if subject is not None and subject.lower_ in _OBJECT_PRONOUNS and (
        (CAUSATIVE | REQUEST) & {subject.head.lemma_, subject.head.head.lemma_}
        or (subject.head.lemma_ != "take" and any(c.dep_ == "nsubj" and c.lower_ == "it" for c in subject.head.children))
    ):  # "it took me a year to finish it" did finish it
        return "made_to"  # "it helps me relax", "they asked me to be a mentor", "it kills me to think of it"
    if any(c.dep_ in ("dative", "dobj") and c.lower_ == "you" for c in verb.children):
        return "to_the_other"  # "I wish you all the best on your exams": about the other, not a fact
    if kind == "named" and verb.lemma_ == "be" and any(
        c.dep_ == "attr" and any(p.lower_ in _OURS for p in c.children) for c in verb.children
    ):
        return "thing_to_speaker"  # "Dance is my stress relief": what a thing is to the speaker
    return None


def _control(verb: Any, content: Any, control: str) -> tuple[str, bool] | str:
    """The control verb that names the predicate, and whether the clause is said of the
    future; or the refusal of a need, a hope or a modal that plans nothing."""
    if (verb.dep_ == "xcomp" and verb.head.lemma_ in INTENT) or (
        verb.lemma_ in INTENT and content.i != verb.i and content.lemma_ in PLANNED
    ):
        control = "plan"  # "I'm determined to find the right dog", "I need to go on a hike": a plan
    elif verb.lemma_ in INTENT and content.i != verb.i:
        return "need_unnamed"  # "I need to finish my thesis", "I gotta take a trip": not done, and no plan named
    if looking_forward(verb):
        if content.lemma_ not in PLANNED:
            return "not_yet"  # "I'm excited to watch this new show": not watched yet
        if content.lemma_ != "start":
            control = "plan"  # "I'm excited to visit Paris" plans it; a new job one starts is had
    controlled = controller(verb) if not control and verb.dep_ == "conj" and verb.tag_ == "VB" else None
    if controlled is not None:
        control = controlled  # "planning to explore the city, try out local cuisines": planned too
    if control == "decide" and (content.i != verb.i or controlled is not None) and content.lemma_ not in CHOOSING:
        control = "plan"  # "decided to run for office" plans it; "decided to go with X" chose X
    future = says_will(verb) or _going(verb, content)
    if ((future or control in ("decide", "plan")) and content.lemma_ in _LEAVING
            and not any(c.lower_ == "for" for c in content.children)):  # fmt: skip
        return "plan_to_leave"  # "decided to quit my job at Google": a plan to leave it, not to have it
    if able_later(verb):
        if content.lemma_ not in PLANNED:
            return "hope"  # "one day we will be able to watch the sunrise": a hope, not a deed
        control = "plan"  # "I'll be able to open my studio next month"
    if content.lemma_ == "be" and verb.dep_ == "advcl":
        return "when_not_what"  # "since I was a kid": when, not what
    if control in ("like", "love") and any(c.lower_ in _WOULD for c in verb.children):
        control = "want"  # "I'd love to visit Paris" is a wish
    elif _states_nothing(verb) or (future and content.lemma_ not in PLANNED):
        return "may_be"  # "we'll be discussing various aspects", "gonna take Toby": no plan kept
    return control, future


def _embedded(verb: Any) -> bool:
    """Inside an "if" clause, a wh-clause ("I love how you tell stories"), what someone is
    reported to have said, or what the speaker wishes were so ("I wish I played piano"). A past clause of time or place ("when I went to an exhibit") says
    what happened."""
    token = verb
    while True:
        if any(c.dep_ == "mark" and c.lower_ in CONDITIONS for c in token.children):
            return True
        happened = token.dep_ in ("advcl", "relcl") and token.tag_ == "VBD"
        if token.dep_ != "ROOT" and not happened and not asks_nothing(token) and any(
            c.lower_ in QUESTION_WORDS and c.i < token.i for c in token.children
        ):
            return True
        if token.dep_ == "ccomp" and token.head.lemma_ in REPORT | WISH:
            return True
        if token.head.i == token.i:
            return False
        token = token.head


def negated(verb: Any) -> bool:
    """"not", "n't", "never", "no longer"; not a "no longer" set apart by a comma ("No longer
    at Meta, I joined OpenAI": that is said of Meta)."""
    return any(
        c.dep_ == "neg" or c.lower_ == "never"
        or (c.lower_ == "longer" and any(g.lower_ == "no" for g in c.children)
            and not any(t.is_punct for t in verb.doc[min(c.i, verb.i) : max(c.i, verb.i)]))
        for c in verb.children
    )  # fmt: skip


def _states_nothing(verb: Any) -> bool:
    """"I could play", "we should meet", "I would buy a boat", "we can make a difference":
    what may, could or should be states nothing. "I can't eat gluten", "can't stand X" and
    "can't wait" do."""
    # "should join and bring", "would recommend visiting"
    head = verb.head if verb.dep_ in ("conj", "xcomp") and not _own_subject(verb) else verb
    modals = {c.lower_ for c in (*verb.children, *head.children) if c.dep_ == "aux"} & MODALS
    if not modals or cannot_wait(verb):
        return False
    return not (modals <= {"can", "ca"} and negated(verb))


def _own_subject(verb: Any) -> bool:
    return any(c.dep_ in SUBJECTS for c in verb.children)


def _going(verb: Any, content: Any) -> bool:
    """"I'm going to visit my grandma": a plan."""
    return bool(verb.lemma_ == "go" and verb.tag_ == "VBG" and content.i != verb.i)


def _content_verb(verb: Any) -> tuple[Any, str]:
    """For "plan to adopt", "love to paint", "going to visit": the complement verb carries the
    object and the control verb the predicate; "can't wait to see X" plans to see X."""
    control = "plan" if cannot_wait(verb) else verb.lemma_ if verb.lemma_ in CONTROL else ""
    # through aspect verbs: "gonna keep pursuing my goals" is pursue goals
    while verb.lemma_ in CONTROL or verb.lemma_ in ASPECT or cannot_wait(verb):
        if any(c.dep_ == "dobj" and c.pos_ in NOUNS for c in verb.children):
            break  # "I hate yoga, to be honest": the object is the verb's own
        complement = next(
            (c for c in verb.children if c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX")
             and not (verb.lemma_ == "go" and c.tag_ == "VBG")), None,
        )  # "went hiking" is the activity, "going to visit" the plan
        if complement is None:
            break
        verb = complement
    return verb, control
