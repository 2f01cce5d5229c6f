"""Lessons: what an agent learned from its failures, one per error signature at a time. Pure.

Reflection gathers, for each signature its new episodes touch, every failure that showed it
and what fixed each (`RESOLVED_BY`), with the lessons the agent stated about it, in time order
(`Incident`). Fixes that say the same thing (`same_fix`) are one fix. The fix that held most
recently is the lesson; a newer, different fix that held closes it (`valid_to`, `invalidated_by`)
and opens the next one; nothing is deleted. A lesson is a FACT edge

    (signature) -[:FACT {predicate: "fixed_by", rule: "lesson"}]-> (fix, an entity of type FIX)

whose statement is a sentence built from the signature and the fix step's own words, whose
support is how many times that fix held, and whose sources are those fixes and their failures.

    confidence = (1 - e^(-support / scale)) x recency x held / (held + did_not_hold)

with the recency of the last fix (`engine.reflect.reconcile.strength`).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from engine.ingest.pipeline import entity_id
from engine.reflect.reconcile import FactClose, FactWrite, strength
from engine.reflect.word_lists import WordLists
from engine.signatures import normalise_volatile
from engine.text import canonical_name, has_cjk, tokenize
from engine.views import LESSON_RULES, Fact
from engine.work import first_line

_WORDS = WordLists("lessons")

__all__ = ["FIX_TYPE", "Incident", "LessonPlan", "fix_key", "plan_lessons", "same_fix"]

FIX_TYPE = "FIX"
PREDICATE = "fixed_by"
SECONDS_PER_DAY = 86_400.0
_SAME_FIX = 0.5  # Jaccard of two fixes' words at and above which they are one fix


class Incident(BaseModel):
    """One failure of a signature and the step that fixed it (none yet: `fix_id` None), or a
    lesson the agent stated about the signature (`stated`: the lesson is the fix)."""

    model_config = ConfigDict(frozen=True)

    failure_id: str | None  # None for a stated lesson
    failed_at: float
    fix_id: str | None = None
    fix_at: float | None = None
    fix_text: str = ""
    held: bool = True
    tool: str | None = None
    stated: bool = False


class SignatureIncidents(BaseModel):
    id: str  # the SIGNATURE entity's
    name: str
    head: str = ""  # its class, status or code (the name's part before its message)
    incidents: list[Incident]


_GENERIC = _WORDS("generic")


class LessonFields(BaseModel):
    """What a lesson says, for a sentence written otherwise (an LLM's) to be checked against."""

    error: str  # the signature's name
    head: str  # its class, status or code
    fix: str  # the fix's first line
    tool: str | None
    fixed: int
    did_not_hold: int
    seen: int
    last_fixed: float

    def facts(self) -> str:
        """The fields as lines, for the prompt."""
        day = datetime.fromtimestamp(self.last_fixed, UTC).date().isoformat()
        return (f"error: {self.error}\ntool: {self.tool or 'unknown'}\nfix: {self.fix}\ntimes fixed this way: "
                f"{self.fixed}\ntimes it did not hold: {self.did_not_hold}\ntimes the error was seen: {self.seen}\n"
                f"last fixed: {day}\n")  # fmt: skip

    def says(self, sentence: str) -> bool:
        """Whether a sentence names the error and the fix as written and no number the fields
        do not hold (the day aside).

        >>> fields = LessonFields(error="HTTP 429: Too Many Requests", head="HTTP 429", fix="pip install tenacity",
        ...                       tool="python", fixed=2, did_not_hold=0, seen=3, last_fixed=0)
        >>> fields.says("On HTTP 429, pip install tenacity fixed it twice of 3."), fields.says("Retry 5 times on HTTP 429.")
        (True, False)
        """
        lowered = sentence.casefold()
        # A head that names nothing ("error") names the error by its message's first words.
        named = self.error.split(": ", 1)[-1].split()[:3] if self.head.casefold() in _GENERIC else [self.head]
        if self.fix.casefold() not in lowered or not all(word.casefold() in lowered for word in named):
            return False
        allowed = set(re.findall(r"\d+", self.facts())) | {"1"}
        return set(re.findall(r"\d+", sentence.replace(self.fix, "").replace(self.head, ""))) <= allowed


class LessonPlan(BaseModel):
    writes: list[FactWrite] = Field(default_factory=list)
    closes: list[FactClose] = Field(default_factory=list)
    fixes: dict[str, tuple[str, str]] = Field(default_factory=dict)  # FIX entity id -> (canonical, name)
    mentions: list[tuple[str, str]] = Field(default_factory=list)  # fix episode, FIX entity id
    fields: dict[str, LessonFields] = Field(default_factory=dict)  # by the id of each lesson written


def fix_key(text: str) -> str:
    """A fix's entity key: its first line with the volatile parts normalised.

    >>> fix_key("pip install ruamel.yaml==0.18.6\\nSuccessfully installed")
    'fix pip install ruamel.yaml==<*>'
    """
    return "fix " + canonical_name(normalise_volatile(first_line(text)))


def _words(text: str) -> frozenset[str]:
    return frozenset(tokenize(normalise_volatile(first_line(text))))


def same_fix(a: str, b: str) -> bool:
    """Whether two fixes say the same thing: their first lines share half their words.

    >>> same_fix("pip install ruamel.yaml", "pip install ruamel.yaml==0.18.6\\nSuccessfully installed")
    True
    >>> same_fix("pip install ruamel.yaml", "pip install -r requirements.txt")
    False
    """
    x, y = _words(a), _words(b)
    return bool(x and y) and len(x & y) / len(x | y) >= _SAME_FIX


class _Period(BaseModel):
    """A stretch of time in which one fix was the lesson."""

    key: str  # the fix's entity key
    name: str
    fixes: list[Incident]  # the incidents it fixed, in order
    misses: int = 0  # times it was tried and did not hold
    start: float
    end: float | None = None


def _periods(incidents: Sequence[Incident]) -> list[_Period]:
    """The lessons over time: a new period each time a different fix holds."""
    tried = sorted((i for i in incidents if i.fix_id is not None and i.fix_at is not None), key=lambda i: i.fix_at or 0.0)
    clusters: list[tuple[str, str]] = []  # (first fix text, key)
    periods: list[_Period] = []
    misses: dict[str, int] = {}

    def cluster_of(text: str) -> str:
        for first, key in clusters:
            if same_fix(first, text):
                return key
        clusters.append((text, fix_key(text)))
        return clusters[-1][1]

    for incident in tried:
        key = cluster_of(incident.fix_text)
        if not incident.held:
            misses[key] = misses.get(key, 0) + 1
            continue
        at = incident.fix_at or incident.failed_at
        if periods and periods[-1].key == key:
            periods[-1].fixes.append(incident)
            continue
        if periods:
            periods[-1].end = at
        earlier = next((p for p in reversed(periods) if p.key == key), None)
        periods.append(_Period(key=key, name=first_line(incident.fix_text), fixes=[*(earlier.fixes if earlier else []), incident], start=at))
    for period in periods:
        period.misses = misses.get(period.key, 0)
    return periods


def _sentence(signature: str, period: _Period, seen: int, tool: str | None) -> str:
    """The lesson in words, built from the signature and the fix's own first line."""
    fixed, last = len(period.fixes), max(i.fix_at or 0.0 for i in period.fixes)
    stated = [i for i in period.fixes if i.stated]
    if len(stated) == fixed:
        return stated[-1].fix_text.strip()
    day = datetime.fromtimestamp(last, UTC)
    if has_cjk(signature + period.name):
        missed = f"，{period.misses}次没有解决" if period.misses else ""
        who = f"{tool} " if tool else ""
        return (f"{who}报错“{signature}”时的解决办法：{period.name}（解决了{fixed}次{missed}，共出现{seen}次，"
                f"最近一次在{day.year}年{day.month}月{day.day}日）。")  # fmt: skip
    times = "once" if fixed == 1 else f"{fixed} times"
    missed = f", did not hold {period.misses} time{'s' * (period.misses != 1)}" if period.misses else ""
    who = f"When {tool} fails with" if tool else "On"
    return (f'{who} "{signature}": {period.name} fixed it ({times}{missed}; seen {seen} '
            f"time{'s' * (seen != 1)}, last fixed {day.day} {day.strftime('%b %Y')}).")  # fmt: skip


def plan_lessons(
    namespace: str, signatures: Sequence[SignatureIncidents], existing: Sequence[Fact], *, now: float,
    scale: float, half_life: float, floor: float, phrased: bool = False,
) -> LessonPlan:  # fmt: skip
    """What to write and close so that each signature's lessons are its periods
    (`existing`: the lesson edges of these signatures, closed ones too). With `phrased` (an
    LLM writes the sentences), a lesson whose evidence is unchanged is left as it is, though
    the rules would say it in other words."""
    plan = LessonPlan()
    for signature in signatures:
        periods = _periods(signature.incidents)
        if not periods:
            continue
        seen = sum(1 for i in signature.incidents if i.failure_id is not None)
        tools = [i.tool for i in signature.incidents if i.tool]
        tool = max(set(tools), key=tools.count) if tools else None
        mine = [f for f in existing if f.subject_id == signature.id and f.rule in LESSON_RULES]
        ids: list[str] = []
        for period in periods:
            object_id = entity_id(namespace, period.key)
            same = [f for f in mine if f.object_id == object_id]
            match = next((f for f in same if abs(f.valid_from - period.start) < 1.0), None) or next(
                (f for f in same if f.valid_to is None and period.end is None), None)  # fmt: skip
            fact_id = match.id if match is not None else str(uuid.uuid4())
            ids.append(fact_id)
            plan.fixes.setdefault(object_id, (period.key, period.name))
            # In the order they happened (each failure, then its fix): the same log cites alike.
            sources = list(dict.fromkeys(i for f in period.fixes for i in (f.failure_id, f.fix_id) if i))
            held = len(period.fixes)
            last = max(i.fix_at or i.failed_at for i in period.fixes)
            confidence = strength(held, (now - last) / SECONDS_PER_DAY, scale=scale, half_life=half_life,
                                  floor=floor) * held / (held + period.misses)  # fmt: skip
            rule = "stated lesson" if all(i.stated for i in period.fixes) else "lesson"
            write = FactWrite(
                id=fact_id, subject_id=signature.id, object_id=object_id, predicate=PREDICATE, negated=False,
                statement=_sentence(signature.name, period, seen, tool), confidence=round(confidence, 6),
                support=held, valid_from=period.start, source_episode_ids=sources, reinforces=match is not None,
                rule=rule,
            )  # fmt: skip
            if match is None or _changed(match, write, compare_words=not phrased):
                plan.writes.append(write)
                plan.fields[fact_id] = LessonFields(
                    error=signature.name, head=signature.head, fix=period.name, tool=tool, fixed=held,
                    did_not_hold=period.misses, seen=seen, last_fixed=last)  # fmt: skip
            plan.mentions += [(i.fix_id, object_id) for i in period.fixes if i.fix_id and not i.stated]
        for index, period in enumerate(periods[:-1]):
            current = next((f for f in mine if f.id == ids[index]), None)
            if current is None or current.valid_to is None:
                plan.closes.append(FactClose(old=ids[index], new=ids[index + 1], at=period.end or now))
    return plan


def _changed(fact: Fact, write: FactWrite, *, compare_words: bool) -> bool:
    before = (fact.support, fact.source_episode_ids, round(fact.confidence, 6))
    after = (write.support, write.source_episode_ids, write.confidence)
    return before != after or (compare_words and fact.statement != write.statement)
