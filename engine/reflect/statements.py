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
    antecedent,
    cannot_wait,
    misread_name,
    moved_to,
    with_name,
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
from engine.reflect.refusals import negated, read_clause
from engine.reflect.reversals import reversals
from engine.reflect.stances import stances
from engine.reflect.statement_cues import (
    ADVERB_PARTICLES,
    AMOUNTS,
    ASPECT,
    CHANGES,
    COLLEAGUES,
    EVENTS,
    FAN,
    FUTURE_AUX,
    HEDGE_AUX,
    HEDGE_WORDS,
    HOMEWARD,
    LIGHT_VERBS,
    LIKING,
    NEGATED_MEANS,
    NOT_EMPLOYED,
    NOT_OBJECT_LINKS,
    PARTICLE_ADVERBS,
    QUESTION_WORDS,
    REACTIONS,
    ROLE_VERBS,
    SPEAKER,
    TAG_QUESTION,
    THINK,
    TIME_LINKS,
)
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
    linked = _linked(verb, particle)
    if direct or linked:
        return direct + linked
    # "we went camping", "I started painting": the activity is the object
    return [(particle, c) for c in verb.children
            if c.dep_ in ("xcomp", "advcl", "dobj") and c.tag_ == "VBG" and c.lemma_ not in LIGHT_VERBS
            and not any(g.dep_ in SUBJECTS or g.dep_ == "mark" for g in c.children)][:1]  # fmt: skip


def _linked(verb: Any, particle: str | None) -> list[tuple[str | None, Any]]:
    """The first object of each preposition of a verb (or of its adjective: "excited about X"),
    with the link it names: "moved to Denver", "a big fan of X"."""
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
    return linked


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






def english_statements(doc: Any) -> list[Statement]:
    """Every statement a parsed text makes about a resolvable subject."""
    quoted = _quoted(doc)
    by_token_rules = token_statements(doc)
    found: list[Statement] = []
    said: list[Statement] = []
    for sentence in doc.sents:
        if said:  # "I got a puppy! Her name's Coco": the name goes with the puppy
            found = [with_name(s, sentence.text) if s in said else s for s in found]
        if _is_question(sentence):
            said = []
            continue
        said = stances(sentence) + by_rule("en.place", places(sentence)) + by_token_rules.get(sentence.start, [])
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




def _said_with(verb: Any, sentence: Any, quoted: set[int]) -> list[Statement]:
    """The statements a verb makes about its subject."""
    reading = read_clause(verb)
    if isinstance(reading, str):
        return []  # refused, by the name `reading` holds (`engine.reflect.refusals`)
    who, content, control, future = reading
    objects, activity, moved = _clause_objects(verb, content, control)
    passive = any(c.dep_ == "nsubjpass" for c in content.children)
    found = []
    first: str | None = None  # the predicate of the verb's first object
    for preposition, obj in objects:
        if _not_its_object(verb, content, control, preposition, obj):
            continue
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
        predicate = _in_its_sense(predicate, content, obj, key)
        if predicate is None:
            continue
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
        said_not = (negated(verb) and not cannot_wait(verb)) or (content.i != verb.i and negated(content))
        # "I stopped drinking coffee" ends it; "I can't stop thinking about it" goes on.
        denied = said_not != _stopped(verb, content)
        if denied and any(c.lower_ in ("other", "another") for c in obj.children):
            continue  # "I haven't used any other languages": of the others, not of these
        if denied and predicate in NEGATED_MEANS:  # "can't stand X": dislikes X
            predicate, denied = NEGATED_MEANS[predicate], False
        found.append(Statement(
            subject_kind=who[0], subject=who[1], predicate=predicate, object=text, object_key=key,
            negated=denied, hedged=_hedged(verb, sentence), sentence=sentence.text.strip(),
            cue=verb.text if content.i == verb.i else f"{verb.text} {content.text}",
        ))  # fmt: skip
    return found


def _clause_objects(verb: Any, content: Any, control: str) -> tuple[list[tuple[str | None, Any]], bool, Any]:
    """The objects a clause states something of, whether the verb itself is the activity
    done, and where a thing was moved to (`moved_to`)."""
    objects = _objects(content)
    moved = None if control else moved_to(content)
    if moved is not None:
        objects = [("to", moved)]  # "moved my blog from WordPress to Hugo": uses Hugo, no "move blog"
    if verb.dep_ == "relcl":
        named = antecedent(verb)
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
    return objects, activity, moved


def _not_its_object(verb: Any, content: Any, control: str, preposition: str | None, obj: Any) -> bool:
    """An object the clause names but states nothing of."""
    if cannot_wait(verb) and obj.lemma_.lower() not in EVENTS:
        return True  # "can't wait for our hike" plans it; "can't wait for the seafood" plans nothing
    if control in ("want", "plan", "decide") and preposition and preposition.split("_")[0] in FAN:
        return True  # "wanted to blend my love for dance": the love is read as a liking, not a wish
    if of_the_other(obj) and content.lemma_ not in ("appreciate", "thank"):
        return True  # "I'd love to see another painting of yours", "I love their work": theirs
    # "finished rereading "The Alchemist"": the rereading states its own object
    return bool(obj.tag_ == "VBG" and obj.pos_ == "VERB" and any(c.dep_ == "dobj" and is_thing(c) for c in obj.children))


def _in_its_sense(predicate: str, content: Any, obj: Any, key: str) -> str | None:
    """The predicate as the object makes it mean: a job left or a habit quit, a light verb's
    sense, colleagues worked with; None for a "leave" that leaves no workplace."""
    # "lost my job at the company": the parser hangs "at" on the job or on the verb
    employer = obj.dep_ == "pobj" and any(t.lemma_.lower() in JOBS for t in (obj.head.head, *obj.head.head.children))
    if content.lemma_ in ("leave", "quit") and predicate == "left" and not (obj.text[:1].isupper() or obj.lemma_.lower() in JOBS or employer):
        if content.lemma_ == "leave":
            return None  # "left Stripe", "left my job"; not "left class early", "leave a legacy"
        predicate = "quit"  # "quit smoking" ends a habit (`engine.reflect.reconcile`)
    predicate = light_sense(predicate, {obj.lemma_.lower(), obj.head.head.lemma_.lower(), key.split()[-1]})
    if predicate == "uses" and obj.lemma_.lower() in COLLEAGUES:
        predicate = "work_with"  # "I work with awesome mechanics": people, not tools
    return predicate
