"""Facts in words: a relation as a person says it ("Sam works at Microsoft"), a fact with the
statement it was drawn from, and an entity's profile in a line an agent can paste. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import zip_longest

from engine.models import Decision
from engine.text import has_cjk
from engine.views import LESSON_RULES, Fact

__all__ = ["fact_text", "profile_text", "relation"]

# Third-person verbs and their base form, for a negated relation ("does not like").
_BASE = {"likes": "like", "dislikes": "dislike", "prefers": "prefer", "works": "work", "lives": "live",
         "has": "have", "plans": "plan", "wants": "want", "uses": "use", "considers": "consider",
         "does": "do"}  # fmt: skip
# The vocabulary's other forms, said of someone as they are.
_SAID = frozenset({"is", "left", "quit", "lost", "broke", "dropped", "met", "went", "made", "took", "got", "saw", "bought"})
# Before a predicate's first word, what makes it a state ("I'm passionate about fashion", "I got
# involved in", "been hooked on"): reflection names such a relation by the adjective or the
# participle and its preposition.
_STATE = (r"(?:am|'m|’m|is|'s|’s|are|'re|’re|was|were|be|been|being|get|got|getting|feel|felt)\s+"
          r"(?:(?:\w+ly|so|very|super|pretty|quite|also|still|now|always|just|even)\s+)?")


# What leads into the verb of a plan or a wish ("wanted to learn Spanish", "I'll go to the gym").
_LEAD = re.compile(r"\b(?:to|will|gonna|wanna)\s+|(?:'ll|’ll)\s+", re.IGNORECASE)
_NOT_A_VERB = frozenset({"a", "an", "the", "some", "any", "more", "this", "that", "these", "those", "be"})
# The speaker's own words: "plans to turn my passion into a business" is not said of Jon.
_SPEAKERS = frozenset({"i", "me", "my", "we", "us", "our", "you", "your"})
_PLANS = {"plans_to": ("plans to", "plans", "does not plan to", "does not plan"),
          "wants": ("wants to", "wants", "does not want to", "does not want")}


def _planned(fact: Fact) -> str | None:
    """For a plan or a wish, its verb with the object as the statement says them: "learn
    Spanish" of "I've always wanted to learn Spanish", "go to the gym" of "I will go to the
    gym"; None when the statement has no short one before the object.

    >>> planned = lambda obj, said: _planned(Fact(subject="Sam", predicate="plans_to", object=obj,
    ...     statement=said, confidence=1, support=1, valid_from=0))
    >>> planned("gym", "Starting tomorrow, I will go to the gym and exercise."), planned("trip", "Can't wait for the trip!")
    ('go to the gym', None)
    >>> planned("Dead", 'We are planning to play "Walking Dead" next Saturday.')
    'play "Walking Dead"'
    >>> planned("local cuisine", "We're planning to ski, try the local cuisine and relax.")
    'try the local cuisine'
    >>> planned("business", "I'm aiming to turn my dancing passion into a business.")
    """
    at = fact.statement.casefold().find(fact.object.casefold())
    if at < 0 or not fact.statement.isascii():
        return None
    end = at + len(fact.object)
    while end < len(fact.statement) and fact.statement[end].isalpha():
        end += 1  # the word as said: "organizer of tournaments"
    if fact.statement[:end].count('"') % 2 and fact.statement[end : end + 1] == '"':
        end += 1  # the rest of a title: 'play "Walking Dead"'
    before = fact.statement[:at]
    for lead in reversed(list(_LEAD.finditer(before))):
        # the verb nearest the object of "to ski, try the local cuisine"
        words = before[lead.end() :].rsplit(",", 1)[-1].split()
        words = words[1:] if words[:1] in (["and"], ["or"]) else words
        if len(words) > 4 or _SPEAKERS & {w.casefold() for w in words}:
            return None
        if words and words[0].casefold() not in _NOT_A_VERB and not words[0].endswith("ing"):
            return " ".join([*words, fact.statement[at:end]])
    return None


# A fact stated in Chinese, said in Chinese: the relation is also what a Chinese question's
# words find ("小周在哪里工作" finds 在腾讯工作, not "works at").
_ZH = {
    "likes": "喜欢{}", "dislikes": "讨厌{}", "prefers": "更喜欢{}", "works_at": "在{}工作",
    "lives_in": "住在{}", "has": "有{}", "plans_to": "打算{}", "wants": "想要{}", "attended": "去了{}",
    "go_to": "去{}", "uses": "用{}", "lost": "失去了{}", "decided": "决定{}", "is": "是{}", "left": "离开了{}", "quit": "戒了{}",
    "join": "加入了{}", "switch_to": "换成了{}", "adopt": "领养了{}", "learn": "学{}", "read": "读{}",
    "buy": "买了{}", "collect": "收藏{}", "teach": "教{}", "speak": "会说{}", "sell": "卖了{}",
    "listen_to": "听{}", "bake": "烤{}", "finish": "完成了{}", "apply_for": "申请{}", "eat": "吃{}",
    "considers": "考虑{}", "allergic_to": "对{}过敏", "train_for": "为{}训练", "study_at": "在{}学习",
    "volunteer_at": "在{}做志愿者", "teach_at": "在{}教书", "climb_at": "在{}攀岩",
}  # fmt: skip


def _chinese(fact: Fact) -> str | None:
    """The relation in Chinese, for a fact whose statement is Chinese (None otherwise).

    >>> said = lambda p, o, negated=False: _chinese(Fact(subject="小周", predicate=p, object=o, negated=negated,
    ...     statement="我说的。", confidence=1, support=1, valid_from=0))
    >>> said("works_at", "腾讯"), said("likes", "火锅", negated=True), said("favorite_电影", "流浪地球")
    ('小周在腾讯工作', '小周不喜欢火锅', '小周最喜欢的电影是流浪地球')
    """
    if not has_cjk(fact.statement or fact.object):
        return None
    if fact.predicate.startswith("favorite_"):
        kind = fact.predicate.removeprefix("favorite_")
        return f"{fact.subject}最喜欢的{kind}{'不是' if fact.negated else '是'}{fact.object}"
    said = _ZH.get(fact.predicate, fact.predicate.replace("_", " ") + " {}").format(fact.object)
    if fact.negated:
        said = ("没" if said.startswith("有") else "不") + said.replace("了", "", 1)
    return fact.subject + said


def relation(fact: Fact) -> str:
    """The fact's relation in words.

    >>> relation(Fact(subject="Sam", predicate="works_at", object="Microsoft", statement="",
    ...               confidence=1, support=1, valid_from=0))
    'Sam works at Microsoft'
    >>> relation(Fact(subject="Sam", predicate="likes", negated=True, object="jazz", statement="",
    ...               confidence=1, support=1, valid_from=0))
    'Sam does not like jazz'
    >>> relation(Fact(subject="Sam", predicate="favorite_sport", object="badminton", statement="",
    ...               confidence=1, support=1, valid_from=0))
    "Sam's favorite sport is badminton"
    >>> relation(Fact(subject="Gina", predicate="passionate_about", object="fashion", confidence=1, support=1,
    ...               statement="I'm really passionate about fashion.", valid_from=0))
    'Gina is passionate about fashion'
    >>> relation(Fact(subject="Mel", predicate="does", object="running", statement="", confidence=1, support=1,
    ...               valid_from=0))
    'Mel does running'
    """
    if (chinese := _chinese(fact)) is not None:
        return chinese
    if fact.predicate in _PLANS:
        with_verb, alone, not_with_verb, not_alone = _PLANS[fact.predicate]
        action = _planned(fact)
        if action is not None:
            return f"{fact.subject} {not_with_verb if fact.negated else with_verb} {action}"
        return f"{fact.subject} {not_alone if fact.negated else alone} {fact.object}"
    if fact.predicate.startswith("favorite_"):
        kind = fact.predicate.removeprefix("favorite_").replace("_", " ")
        return f"{fact.subject}'s favorite {kind} {'is not' if fact.negated else 'is'} {fact.object}"
    verb, *rest = fact.predicate.split("_")
    if rest and verb not in _SAID and re.search(rf"\b{_STATE}{re.escape(verb)}\b", fact.statement, re.IGNORECASE):
        verb = f"is not {verb}" if fact.negated else f"is {verb}"
    elif fact.negated:
        verb = "is not" if verb == "is" else f"does not {_BASE.get(verb, verb)}"
    else:
        verb = _third_person(verb)
    return " ".join([fact.subject, verb, *rest, fact.object])


def _third_person(verb: str) -> str:
    """A predicate's verb as said of someone: a bare lemma ("play", "volunteer") takes its
    -s; the vocabulary's forms ("likes", "attended", "is") stay.

    >>> [_third_person(v) for v in ("play", "go", "study", "watch", "likes", "attended", "left")]
    ['plays', 'goes', 'studies', 'watches', 'likes', 'attended', 'left']
    """
    if verb in _BASE or verb in _SAID or verb.endswith("ed") or not verb.isascii():
        return verb
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def fact_text(fact: Fact) -> str:
    """What a fact point holds and a fact card shows: the relation, then its statement; a
    lesson's statement is its relation in words already."""
    statement = fact.statement.strip()
    if fact.rule in LESSON_RULES and statement:
        return statement
    return f"{relation(fact)}: {statement}" if statement else relation(fact)


def profile_text(name: str, facts: Sequence[Fact], *, limit: int = 12, decided: Sequence[Decision] = ()) -> str:
    """An entity's current facts in one line, by predicate, each value with when it was
    stated (or the time it names): what an agent pastes into a prompt. `facts` come grouped
    and best first (`engine.lookup.grouped_facts`); the line takes the best of each predicate
    before the second of any, so that one predicate said of many things does not fill it,
    and names a value stated again at another time once, with both times.

    >>> fact = lambda p, o, at: Fact(subject="Sam", predicate=p, object=o, statement="",
    ...                              confidence=1, support=1, valid_from=at)
    >>> profile_text("Sam", [fact("works_at", "Microsoft", 1750420800), fact("likes", "jazz", 1746000000),
    ...                      fact("likes", "hiking", 1741000000)])
    'Sam: works at Microsoft (Jun 2025); likes jazz (Apr 2025), hiking (Mar 2025).'
    >>> likes = [fact("likes", o, 1746000000) for o in ("jazz", "tea", "art")]
    >>> profile_text("Sam", [*likes, fact("play", "clarinet", 1741000000)], limit=2)
    'Sam: likes jazz (Apr 2025); plays clarinet (Mar 2025).'
    >>> profile_text("Sam", [fact("attended", "pride parade", 1750420800), fact("attended", "Pride Parade", 1741000000)])
    'Sam: attended pride parade (Jun 2025, Mar 2025).'
    >>> plan = fact("plans_to", "Dead", 1750420800).model_copy(update={"statement": 'We plan to play "Walking Dead".'})
    >>> profile_text("Sam", [plan])
    'Sam: plans to play "Walking Dead" (Jun 2025).'
    >>> profile_text("小周", [fact("likes", "火锅", 1746000000).model_copy(update={"statement": "我喜欢火锅。"})])
    '小周: 喜欢火锅 (2025年4月).'

    With no fact of its own, the line says what was decided about it (`decided`, the latest
    first), rather than nothing:

    >>> move = Decision(id="d", namespace="n", text="We decided to go with Postgres for Atlas.",
    ...                 decided_at=1750420800, created_at=1750420800)
    >>> profile_text("Atlas", [], decided=[move])
    'Atlas: decided "We decided to go with Postgres for Atlas." (Jun 2025).'
    """
    groups: dict[str, list[Fact]] = {}
    for fact in facts:
        groups.setdefault(fact.predicate, []).append(fact)
    chosen = [f for rank in zip_longest(*groups.values()) for f in rank if f is not None][:limit]
    place = {predicate: i for i, predicate in enumerate(groups)}
    shown: dict[str, dict[str, list[str]]] = {}  # verb -> the object as first written -> its times
    seen: dict[tuple[str, str], str] = {}
    for fact in sorted(chosen, key=lambda f: place[f.predicate]):
        words = relation(fact).removeprefix(fact.subject).strip()
        # 'plans to play "Walking Dead"' names its object in its own words: the whole is the verb
        value = fact.object if words.endswith(fact.object) else ""
        verb = words.removesuffix(value).strip()
        at = _month(fact.refers_to if fact.refers_to is not None else fact.valid_from, has_cjk(verb))
        written = seen.setdefault((verb, value.casefold()), value)
        times = shown.setdefault(verb, {}).setdefault(written, [])
        if at not in times:
            times.append(at)
    if not shown:
        active = [d for d in decided if d.status == "active"][:2]
        if active:
            return f"{name}: decided " + "; ".join(
                f'"{d.text}" ({_month(d.decided_at, has_cjk(d.text))})' for d in active) + "."  # fmt: skip
        return f"{name}: nothing known yet."
    return f"{name}: " + "; ".join(
        (verb if has_cjk(verb) else f"{verb} ")  # Chinese runs on: "喜欢火锅"
        + ", ".join(f"{value} ({', '.join(times)})".lstrip() for value, times in values.items())
        for verb, values in shown.items()
    ) + "."


def _month(epoch: float, chinese: bool = False) -> str:
    moment = datetime.fromtimestamp(epoch, UTC)
    return f"{moment.year}年{moment.month}月" if chinese else moment.strftime("%b %Y")
