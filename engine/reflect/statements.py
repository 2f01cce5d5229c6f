"""Statements a sentence makes about someone, from spaCy's dependency parse. Pure over a Doc.

"I went to an LGBTQ support group yesterday" said by Caroline is Caroline -attended-> LGBTQ
support group. Subject-verb-object, copula, verb-preposition and "plan to / want to" structures
are read; a subject is the speaker ("I"), the other party ("you") or a named subject, anything
else ("it", "they", "my sister") is dropped. Questions, conditionals and reported speech state
nothing; hedged statements ("maybe", "I think", "might") are kept and marked. Predicates are
lemmas mapped onto `engine.reflect.vocabulary` where one fits. Noun phrases are read by
`engine.reflect.phrases`; what the speaker likes, has or values without a verb saying so ("X is
my favorite", "your support means a lot") by `engine.reflect.stances`; where they work and live
("my employer is X", "home is Y now") by `engine.reflect.places`; a taste that has ended
("I no longer like running") by `engine.reflect.reversals`; whom a subject names by
`engine.reflect.subjects`.
"""

from __future__ import annotations

from typing import Any

from engine.reflect.clauses import (
    able_later,
    advised,
    antecedent,
    asks_nothing,
    cannot_wait,
    controller,
    looking_forward,
    misread_name,
    moved_to,
    says_will,
    speaking_of,
    too_much,
    undecided,
    used_to,
    with_listener,
    with_name,
    yet_to_come,
)
from engine.reflect.phrases import (
    NOUNS,
    SUBJECTS,
    is_thing,
    less_of,
    modifiers,
    of_the_other,
    phrase,
    pointed_at,
    what_is_meant,
    with_conjuncts,
)
from engine.reflect.places import places
from engine.reflect.reversals import reversals
from engine.reflect.stances import stances
from engine.reflect.statement_cues import (
    ADVERB_PARTICLES,
    AMOUNTS,
    ASPECT,
    CAUSATIVE,
    CHANGES,
    CHOOSING,
    COLLEAGUES,
    CONDITIONS,
    CONTROL,
    EVENTS,
    FAN,
    FUTURE_AUX,
    HEDGE_AUX,
    HEDGE_WORDS,
    HOMEWARD,
    INTENT,
    LIGHT_VERBS,
    LIKING,
    MODALS,
    NEGATED_MEANS,
    NOT_EMPLOYED,
    NOT_OBJECT_LINKS,
    PARTICLE_ADVERBS,
    PLANNED,
    QUESTION_WORDS,
    REACTIONS,
    REPORT,
    REQUEST,
    ROLE_VERBS,
    SPEAKER,
    SPEECH,
    TAG_QUESTION,
    THINK,
    TIME_LINKS,
    WISH,
)
from engine.reflect.subjects import says_i_without_saying_it, subject_of, who_is
from engine.reflect.token_rules import token_statements
from engine.reflect.vocabulary import JOBS, Statement, by_rule, light_sense, readable_predicate
from engine.reflect.word_lists import WordLists

_WORDS = WordLists("statements")

__all__ = ["english_statements"]

_MARKS = ('"', "“", "”")


def _quoted(doc: Any) -> set[int]:
    """Token indices inside quotation marks: what someone else is quoted saying."""
    inside, marks = set(), 0
    for token in doc:
        if token.text in _MARKS:
            marks += 1
            continue
        if marks % 2:
            inside.add(token.i)
    return inside


def _quotation(token: Any) -> str:
    """The words between the quotation marks around `token`."""
    start, end = token.i, token.i
    while start > 0 and token.doc[start - 1].text not in _MARKS:
        start -= 1
    while end + 1 < len(token.doc) and token.doc[end + 1].text not in _MARKS:
        end += 1
    return str(token.doc[start : end + 1].text).strip()


def _is_question(sentence: Any) -> bool:
    text = sentence.text.strip()
    if text.endswith("?"):
        # A tag after a statement of the speaker's own; "you did X, right?" still asks.
        return TAG_QUESTION.search(text) is None or any(
            t.lower_ == "you" and t.dep_ in SUBJECTS for t in sentence
        )
    first = sentence[0]
    return first.lower_ in QUESTION_WORDS and first.dep_ not in ("advmod", "mark")


def _exclaimed_after_dash(verb: Any, thing: Any) -> bool:
    """A second object after a dash, with no determiner, says what the first was like, not
    what was done: "finished something - pretty wild journey!" (not "finished it - the
    painting of the lake")."""
    return (thing.dep_ == "dobj"
            and any(c.dep_ == "dobj" and c.i < thing.i for c in verb.children)
            and any(t.lower_ in ("-", "–", "—") for t in thing.doc[verb.i + 1:thing.i])
            and not any(c.dep_ in ("det", "poss", "nummod") for c in thing.children))  # fmt: skip


def _objects(verb: Any) -> list[tuple[str | None, Any]]:
    """(preposition or particle, object token) pairs of a verb: the object after "a fan of" /
    "care of" / "a job at"; else a direct object or a specific attribute ("a shooting guard"), or the noun a
    relative clause describes, then the first object of each preposition, also of an adjective
    ("excited about X"); else an activity ("we went camping")."""
    # a particle the parser calls an adverb is one too: "putting away a little for a camera"
    particle = next((c.lower_ for c in verb.children if c.dep_ == "prt" or (c.dep_ == "advmod" and c.lower_ in PARTICLE_ADVERBS and c.i > verb.i)), None)
    direct: list[tuple[str | None, Any]] = []
    for child in verb.children:
        offer = child.lemma_ == "offer" and verb.lemma_ == "accept"  # "accepted an offer from Airbnb"
        if child.dep_ in ("attr", "dobj") and (child.lemma_ in FAN or child.lemma_ in JOBS or offer):
            # the parser hangs "of my grandma" on the noun or on the verb after it
            preps = [p for p in child.children if p.dep_ == "prep"] + [
                p for p in verb.children if p.dep_ == "prep" and p.i == child.i + 1
            ]
            liked = [(p.lower_, o) for p in preps for o in p.children
                     if o.dep_ == "pobj" and is_thing(o)]  # fmt: skip
            if liked:
                link = f"{child.lemma_}_{liked[0][0]}"
                return [(link, t) for t in with_conjuncts(liked[0][1])]
        if child.dep_ == "attr" and not modifiers(child):
            continue  # "you're an inspiration", "I'm a huge fan": a bare noun is rarely a fact
        if _exclaimed_after_dash(verb, child):
            continue
        meant = what_is_meant(child)
        if child.dep_ in ("dobj", "attr") and is_thing(meant):
            direct = [(particle, t) for t in with_conjuncts(meant)]
            break
    if not direct and verb.dep_ == "relcl" and verb.lemma_ != "be" and is_thing(antecedent(verb)):
        # "the parade I went to": the preposition left without its object is the link
        # a time's preposition links no thing: "the aquarium I bought the day before yesterday"
        stranded = next((c.lower_ for c in verb.children
                         if c.dep_ == "prep" and c.lower_ not in TIME_LINKS
                         and not any(is_thing(o) for o in c.children)), None)  # fmt: skip
        return [(stranded or particle, antecedent(verb))]  # "the figurines I bought"
    if not direct and any(c.dep_ == "dobj" and c.pos_ in ("NOUN", "PRON") for c in verb.children):
        return []  # "took this pic in Spain", "took it for a ride": said of what is not a thing
    # "excited about X", and "got back from X" where the parser hangs "from" on "back"
    heads = [verb] + [c for c in verb.children if c.dep_ in ("acomp", "attr")
                      or (c.dep_ == "advmod" and c.lower_ in ADVERB_PARTICLES)]  # fmt: skip
    linked: list[tuple[str | None, Any]] = []
    for head in heads:
        for child in head.children:
            hired_by = child.dep_ == "agent" and head.lemma_ in ("hire", "employ", "recruit")  # "got hired by Bosch"
            if not hired_by and (child.dep_ != "prep" or (child.lower_ in NOT_OBJECT_LINKS and not _as_role(head, child))):
                continue
            objects = [m for o in child.children
                       if o.dep_ == "pobj" and is_thing(m := what_is_meant(o))]  # fmt: skip
            # "thinking about taking a trip": the object of the -ing complement
            objects += [o for c in child.children if c.dep_ == "pcomp"
                        for o in c.children if o.dep_ == "dobj" and is_thing(o)]  # fmt: skip
            # "thinking about switching to a standing desk": where the -ing complement goes
            objects += [o for c in child.children if c.dep_ == "pcomp" and c.lemma_ in CHANGES
                        for p in c.children if p.dep_ == "prep" and p.lower_ == "to"
                        for o in p.children if o.dep_ == "pobj" and is_thing(o)]  # fmt: skip
            if not objects:
                continue
            if head.i != verb.i:  # "I'm excited about X", "a big fan of X"
                link = f"{head.lemma_.lower()}_{child.lower_}"
            else:
                link = f"{particle}_{child.lower_}" if particle else child.lower_
            linked += [(link, t) for t in with_conjuncts(objects[0])]
    if verb.lemma_ in CHANGES and any((link or "").endswith("to") for link, _ in linked):
        # "switched from SQLite to DuckDB": what they have now, not what they left
        linked = [(link, t) for link, t in linked if (link or "").endswith("to")]
    if direct or linked:
        return direct + linked
    # "we went camping", "I started painting": the activity is the object
    return [(particle, c) for c in verb.children
            if c.dep_ in ("xcomp", "advcl", "dobj") and c.tag_ == "VBG" and c.lemma_ not in LIGHT_VERBS
            and not any(g.dep_ in SUBJECTS or g.dep_ == "mark" for g in c.children)][:1]  # fmt: skip


def _as_role(verb: Any, preposition: Any) -> bool:
    """"I work at Google as a product manager": what they are (`vocabulary`: work_as is `is`)."""
    return preposition.lower_ == "as" and verb.lemma_ in ROLE_VERBS


def _hedged(verb: Any, sentence: Any) -> bool:
    if any(c.dep_ == "aux" and c.lower_ in HEDGE_AUX and verb.lemma_ not in ("like", "love")
           for c in verb.children):  # fmt: skip
        return True
    if any(t.lower_ in HEDGE_WORDS for t in sentence):
        return True
    head = verb.head
    return verb.dep_ == "ccomp" and head.lemma_ in THINK


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


def _said_of_other(verb: Any, predicate: str) -> bool:
    """Whether a "you" statement reports the other party's own words, not a compliment
    ("you're an inspiration"), a wish ("you'll be a great mom") or a reaction ("glad you had
    support"): only a main-clause statement of what they have or did counts."""
    main = verb.dep_ == "ROOT" or (verb.dep_ == "conj" and verb.head.dep_ == "ROOT")
    modal = any(c.dep_ == "aux" and c.lower_ in FUTURE_AUX for c in verb.children)
    reaction = any(
        (t.pos_ in ("ADJ", "INTJ") or t.lower_ in REACTIONS) and t.i < verb.i for t in verb.sent
    )
    return main and not modal and not reaction and predicate != "is"


def _negated(verb: Any) -> bool:
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
    return not (modals <= {"can", "ca"} and _negated(verb))


def _own_subject(verb: Any) -> bool:
    return any(c.dep_ in SUBJECTS for c in verb.children)


def _about_something_unnamed(verb: Any) -> bool:
    """"I love working on it": what is loved is "it", which the sentence does not name."""
    return any(
        o.pos_ == "PRON" and o.lower_ not in SPEAKER
        for c in verb.children if c.dep_ in ("prep", "dobj")
        for o in ([c] if c.dep_ == "dobj" else list(c.children))
    )  # fmt: skip


def _stopped(verb: Any, content: Any) -> bool:
    """"I stopped drinking coffee": the aspect verb ends what its complement says."""
    token = verb
    while token.i != content.i:
        if token.lemma_ in ("stop", "quit"):
            return True
        token = next((c for c in token.children if c.dep_ == "xcomp" and content in c.subtree), content)
    return False


def _role_at(verb: Any, link: str | None, place: Any) -> bool:
    """"I'm a product manager at Shopify", "I'm a teacher now, at Westside Elementary": a
    role at a name is where one works, unless the role is a student's, a fan's (`NOT_EMPLOYED`)."""
    if verb.lemma_ != "be" or place.pos_ != "PROPN" or not link:
        return False
    role, _, preposition = link.rpartition("_")
    if not role:  # the parser hung "at" on the verb: the role is its attribute
        role = next((c.lemma_ for c in verb.children if c.dep_ == "attr" and c.pos_ == "NOUN"), "")
    return preposition in ("at", "for") and "_" not in role and bool(role) and role not in NOT_EMPLOYED


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


def english_statements(doc: Any) -> list[Statement]:
    """Every statement a parsed text makes about a resolvable subject."""
    quoted = _quoted(doc)
    found: list[Statement] = []
    said: list[Statement] = []
    for sentence in doc.sents:
        if said:  # "I got a puppy! Her name's Coco": the name goes with the puppy
            found = [with_name(s, sentence.text) if s in said else s for s in found]
        if _is_question(sentence):
            said = []
            continue
        said = stances(sentence) + by_rule("en.place", places(sentence)) + token_statements(sentence)
        for verb in sentence:
            if (verb.pos_ in ("VERB", "AUX") or _adjective_root(verb)) and verb.i not in quoted and not misread_name(verb):
                said += by_rule("en.clause", _said_with(verb, sentence, quoted))
        found += said + reversals(sentence, said)
    # One object read twice ("CS:GO" is three tokens) is one statement.
    unique: dict[tuple[str, str, str, bool, str], Statement] = {}
    for s in found:
        unique.setdefault((s.subject, s.predicate, s.object_key, s.negated, s.sentence), s)
    return list(unique.values())


def _where(link: str | None, thing: Any, swallowed: bool) -> bool:
    """Whether a verb's second object is worth a fact of its own: a named or described place
    it went to or came from ("took my kids to the pet salon", "bought a mouse from
    Logitech"), under a predicate that keeps the preposition ("prefers Python for pipelines"
    does not prefer pipelines)."""
    place = (link or "").rsplit("_", 1)[-1] in ("to", "from")  # "saw AC/DC in Berlin": not a fact of Berlin
    return place and not swallowed and (thing.pos_ != "NOUN" or bool(modifiers(thing)))


def _is_activity(verb: Any) -> bool:
    """A verb in -ing with nothing after it that it is about: "I've been painting a lot"."""
    return (
        verb.tag_ == "VBG" and verb.pos_ == "VERB" and verb.lemma_ not in LIGHT_VERBS | ASPECT
        and not any(c.dep_ in ("dobj", "ccomp", "xcomp", "attr", "acomp") and c.lower_ not in AMOUNTS
                    for c in verb.children)
    )  # fmt: skip


def _adjective_root(token: Any) -> bool:
    """"I'm stuck with my music": the parser makes some adjectives the head of their clause."""
    return token.pos_ == "ADJ" and token.dep_ == "ROOT" and any(c.lemma_ == "be" for c in token.children)


_WISHES = _WORDS("wishes")
_INVITING = _WORDS("inviting")


def _said_with(verb: Any, sentence: Any, quoted: set[int]) -> list[Statement]:
    """The statements a verb makes about its subject."""
    if verb.dep_ == "xcomp" and (verb.head.lemma_ in CONTROL | ASPECT or cannot_wait(verb.head)):
        return []  # read through its control verb
    if used_to(verb):
        return []  # "I used to love jazz", "when I used to be able to hold animals": no longer so
    if verb.lemma_ == "use" and verb.tag_ == "VBD" and any(c.dep_ == "xcomp" for c in verb.children):
        return []  # "the conversations we used to have": a habit of the past, not a tool
    subject = subject_of(verb)
    if subject is None:
        who = ("speaker", "I") if says_i_without_saying_it(verb) else None
    else:
        who = who_is(subject)
    if who is None or _embedded(verb) or speaking_of(verb):
        return []
    if subject is not None and subject.lower_ == "we" and any(c.lower_ in ("all", "both") for c in subject.children):
        return []  # "we all make mistakes": said of everyone
    if subject is not None and subject.lower_ in ("me", "us") and (
        (CAUSATIVE | REQUEST) & {subject.head.lemma_, subject.head.head.lemma_}
        or (subject.head.lemma_ != "take" and any(c.dep_ == "nsubj" and c.lower_ == "it" for c in subject.head.children))
    ):  # "it took me a year to finish it" did finish it
        return []  # "it helps me relax", "they asked me to be a mentor", "it kills me to think of it"
    if any(c.dep_ in ("dative", "dobj") and c.lower_ == "you" for c in verb.children):
        return []  # "I wish you all the best on your exams": about the other, not a fact
    if who[0] == "named" and verb.lemma_ == "be" and any(
        c.dep_ == "attr" and any(p.lower_ in ("my", "our") for p in c.children) for c in verb.children
    ):
        return []  # "Dance is my stress relief": what a thing is to the speaker
    content, control = _content_verb(verb)
    if undecided(verb) or undecided(content) or too_much(verb) or advised(verb) or yet_to_come(verb):
        return []  # "still deciding on", "too lazy to research it", "I recommend X-ing", "once I'm done": not done
    if (verb.dep_ == "xcomp" and verb.head.lemma_ in INTENT) or (
        verb.lemma_ in INTENT and content.i != verb.i and content.lemma_ in PLANNED
    ):
        control = "plan"  # "I'm determined to find the right dog", "I need to go on a hike": a plan
    elif verb.lemma_ in INTENT and content.i != verb.i:
        return []  # "I need to finish my thesis", "I gotta take a trip": not done, and no plan named
    if looking_forward(verb):
        if content.lemma_ not in PLANNED:
            return []  # "I'm excited to watch this new show": not watched yet
        if content.lemma_ != "start":
            control = "plan"  # "I'm excited to visit Paris" plans it; a new job one starts is had
    controlled = controller(verb) if not control and verb.dep_ == "conj" and verb.tag_ == "VB" else None
    continued = controlled is not None
    if controlled is not None:
        control = controlled  # "planning to explore the city, try out local cuisines": planned too
    if control == "decide" and (content.i != verb.i or continued) and content.lemma_ not in CHOOSING:
        control = "plan"  # "decided to run for office" plans it; "decided to go with X" chose X
    future = says_will(verb) or _going(verb, content)
    if (future or control in ("decide", "plan")) and content.lemma_ in ("quit", "leave") and not any(c.lower_ == "for" for c in content.children):
        return []  # "decided to quit my job at Google": a plan to leave it, not to have it
    if able_later(verb):
        if content.lemma_ not in PLANNED:
            return []  # "one day we will be able to watch the sunrise": a hope, not a deed
        control = "plan"  # "I'll be able to open my studio next month"
    if content.lemma_ == "be" and verb.dep_ == "advcl":
        return []  # "since I was a kid": when, not what
    if control in ("like", "love") and any(c.lower_ in ("would", "'d") for c in verb.children):
        control = "want"  # "I'd love to visit Paris" is a wish
    elif _states_nothing(verb) or (future and content.lemma_ not in PLANNED):
        return []  # "we'll be discussing various aspects", "gonna take Toby": no plan kept
    if content.i != verb.i and content.lemma_ in SPEECH and control in _WISHES:
        return []  # "I'd like to chat about my studies", "I want to discuss my budget": a talk wished for
    if control in _INVITING and content.i != verb.i and with_listener(verb):
        return []  # "I'd love to grab coffee and talk through your thesis": an invitation
    objects = _objects(content)
    moved = None if control else moved_to(content)
    if moved is not None:
        objects = [("to", moved)]  # "moved my blog from WordPress to Hugo": uses Hugo, no "move blog"
    if verb.dep_ == "relcl":
        named = antecedent(verb)
        if any(c.lower_ in ("any", "no") for c in named.children):
            return []  # "haven't found any exercises I like": none is liked
        if content.i != verb.i and not any(c.dep_ == "dobj" for c in content.children):
            # "the connection I'd like to have with Toby": what is had is the connection
            objects = [(None, named)] if is_thing(named) else []
    if (control in LIKING and content.i != verb.i and objects and content.lemma_ != "listen"
            and all(link and "_" not in link for link, _ in objects)):  # fmt: skip
        objects = []  # "I love experimenting in the kitchen": the experimenting, not the kitchen
    if (not objects and control in ("like", "love", "enjoy", "hate", "prefer")
            and content.i != verb.i and content.lemma_ not in LIGHT_VERBS and content.tag_ != "VBN"
            and not any(c.dep_ == "dobj" for c in content.children)  # "love to discover new places"
            and not _about_something_unnamed(content)
            and not any(c.dep_ == "dobj" and c.lemma_ == "time" for c in content.children)):  # "love spending time": not "spending"  # fmt: skip
        objects = [(None, content)]  # "I love to swim": the activity is the object
    # "I've been running a lot", "Been reading as usual": what they do
    activity = not objects and not control and _is_activity(content)
    if activity:
        objects = [(None, content)]
    passive = any(c.dep_ == "nsubjpass" for c in content.children)
    found = []
    first: str | None = None  # the predicate of the verb's first object
    for preposition, obj in objects:
        if cannot_wait(verb) and obj.lemma_.lower() not in EVENTS:
            continue  # "can't wait for our hike" plans it; "can't wait for the seafood" plans nothing
        if control in ("want", "plan", "decide") and preposition and preposition.split("_")[0] in FAN:
            continue  # "wanted to blend my love for dance": the love is read as a liking, not a wish
        if of_the_other(obj) and content.lemma_ not in ("appreciate", "thank"):
            continue  # "I'd love to see another painting of yours", "I love their work": theirs
        if obj.tag_ == "VBG" and obj.pos_ == "VERB" and any(c.dep_ == "dobj" and is_thing(c) for c in obj.children):
            continue  # "finished rereading "The Alchemist"": the rereading states its own object
        text, key = phrase(obj) if obj.pos_ in NOUNS or obj.text[:1].isupper() else (obj.lower_, obj.lemma_.lower())
        if obj.i in quoted:  # "Just finished "A Dance with Dragons"": the title, whole
            text = key = _quotation(obj)
        predicate = "does" if activity else readable_predicate(
            control or content.lemma_,
            preposition if not control else None,
            past=content.tag_ == "VBD",
            passive=content.text.lower() if passive else None,
            future=future,
        )
        if moved is not None:
            predicate = "switch_to"
        role_at = _role_at(content, preposition, obj)
        if role_at:
            predicate = "works_at"  # "I'm a product manager at Shopify": the role is its own statement
        elif predicate is None or readable_predicate(content.lemma_, preposition) is None:
            continue  # "I wanted to tell you about X": nothing stated about X
        # "lost my job at the company": the parser hangs "at" on the job or on the verb
        employer = obj.dep_ == "pobj" and any(t.lemma_.lower() in JOBS for t in (obj.head.head, *obj.head.head.children))
        if content.lemma_ in ("leave", "quit") and predicate == "left" and not (obj.text[:1].isupper() or obj.lemma_.lower() in JOBS or employer):
            if content.lemma_ == "leave":
                continue  # "left Stripe", "left my job"; not "left class early", "leave a legacy"
            predicate = "quit"  # "quit smoking" ends a habit (`engine.reflect.reconcile`)
        predicate = light_sense(predicate, {obj.lemma_.lower(), obj.head.head.lemma_.lower(), key.split()[-1]})
        if predicate == "uses" and obj.lemma_.lower() in COLLEAGUES:
            predicate = "work_with"  # "I work with awesome mechanics": people, not tools
        second = preposition != objects[0][0] and not (preposition == "as" and predicate == "is") and not role_at
        if second and not _where(preposition, obj, bool(control) or predicate == first):
            continue
        if key in ("house", "home") and (content.lemma_ in CHANGES or (key == "home" and content.lemma_ in HOMEWARD)):
            continue  # "we moved house", "wanted to take them all home": the move, not a house
        first = first or predicate
        if who[0] == "other" and not _said_of_other(verb, predicate):
            continue
        if predicate == "is" and obj.pos_ not in NOUNS:
            continue  # "we're all striving": what they do is not what they are
        if less_of(obj):
            continue  # "trying to eat less processed food": cutting down; "less crowded" is no "crowded"
        if predicate in ("likes", "decided") and pointed_at(obj):
            continue  # "I love this genre", "a movie I enjoy", "use this money": which one, it does not say
        said_not = (_negated(verb) and not cannot_wait(verb)) or (content.i != verb.i and _negated(content))
        # "I stopped drinking coffee" ends it; "I can't stop thinking about it" goes on.
        negated = said_not != _stopped(verb, content)
        if negated and any(c.lower_ in ("other", "another") for c in obj.children):
            continue  # "I haven't used any other languages": of the others, not of these
        if negated and predicate in NEGATED_MEANS:  # "can't stand X": dislikes X
            predicate, negated = NEGATED_MEANS[predicate], False
        found.append(Statement(
            subject_kind=who[0], subject=who[1], predicate=predicate, object=text, object_key=key,
            negated=negated, hedged=_hedged(verb, sentence), sentence=sentence.text.strip(),
        ))  # fmt: skip
    return found
