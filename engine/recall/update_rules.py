"""The rules that read a change and its slot out of a text, from `engine/rules/updates.toml`.

A change is named by a rule's cue; its slot, what changed, is the nouns of the cue's own
clause (before the cue, or around it up to the new value), so that an update replaces the
memories about that thing and not every memory that shares a word with it.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from engine.nlp import topic_spans
from engine.text import tokenize

__all__ = ["Change", "UpdateRule", "UpdateRules", "read_change", "update_rules"]

RULES_FILE = Path(__file__).resolve().parents[1] / "rules" / "updates.toml"


class UpdateRule(BaseModel):
    """One way a text states that something changed."""

    model_config = ConfigDict(frozen=True)

    name: str
    language: Literal["en", "zh"]
    slot: Literal["before", "around"]
    cue: str
    examples: tuple[tuple[str, tuple[str, ...]], ...] = ()
    counterexamples: tuple[str, ...] = ()


class UpdateRules(BaseModel):
    """The rules with what bounds a slot: clause breaks, the words a new value starts with,
    the nouns that are never a slot, another person's thing."""

    model_config = ConfigDict(frozen=True)

    breaks: str
    value_words: str
    not_slots: frozenset[str]
    another: str
    rules: tuple[UpdateRule, ...]


class Change(BaseModel):
    """A change a text states: the rule that read it, its cue and the nouns of its slot."""

    model_config = ConfigDict(frozen=True)

    rule: str
    cue: str
    slot: tuple[str, ...]
    slot_words: frozenset[str]  # the slot's index terms (`engine.text.tokenize`), as an older text is matched
    anothers: bool  # the changed thing is another person's ("my sister's flight")


@cache
def update_rules(path: Path = RULES_FILE) -> UpdateRules:
    """The rules of `path`, read once."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    clause = data["clause"]
    return UpdateRules(
        breaks=clause["breaks"], value_words=clause["value_words"], not_slots=frozenset(clause["not_slots"]),
        another=data["another"]["pattern"], rules=tuple(UpdateRule(**rule) for rule in data["rule"]),
    )  # fmt: skip


@cache
def _compiled(rules: UpdateRules) -> tuple[list[tuple[UpdateRule, re.Pattern[str]]], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    flags = re.IGNORECASE
    cues = [(rule, re.compile(rule.cue, flags)) for rule in rules.rules]
    return cues, re.compile(rules.breaks, flags), re.compile(rules.value_words, flags), re.compile(rules.another, flags)


def cue_of(text: str, rules: UpdateRules | None = None) -> tuple[UpdateRule, re.Match[str]] | None:
    """The first cue of a change in `text` and its rule, or None (the earliest in the text;
    at one place, the rule listed first)."""
    cues, *_ = _compiled(rules or update_rules())
    found = [(match.start(), n, rule, match) for n, (rule, cue) in enumerate(cues) if (match := cue.search(text))]
    if not found:
        return None
    _, _, rule, match = min(found, key=lambda f: (f[0], f[1]))
    return rule, match


def slot_bounds(text: str, rule: UpdateRule, cue: re.Match[str], rules: UpdateRules | None = None) -> list[tuple[int, int]]:
    """Where the words of the cue's clause that name what changed stand (`rule.slot`): from
    the clause's start to the cue, and for "around" from the cue to the new value.

    >>> text = "Sadly, the launch moved to November 27 because of the venue"
    >>> rule, match = cue_of(text)
    >>> rule.name, [text[a:b] for a, b in slot_bounds(text, rule, match)]
    ('moved_to', [' the launch '])
    >>> text = "Last spring we migrated Atlas from Postgres to MySQL"
    >>> rule, match = cue_of(text)
    >>> rule.name, [text[a:b] for a, b in slot_bounds(text, rule, match)]
    ('replaced', ['Last spring we ', ' Atlas '])
    """
    _, breaks, value_words, _ = _compiled(rules or update_rules())
    starts = [m.end() for m in breaks.finditer(text, 0, cue.start())]
    bounds = [(starts[-1] if starts else 0, cue.start())]
    if rule.slot == "around":
        ends = [m.start() for m in (breaks.search(text, cue.end()), value_words.search(text, cue.end())) if m]
        bounds.append((cue.end(), min(ends, default=len(text))))
    return bounds


def read_change(text: str, rules: UpdateRules | None = None) -> Change | None:
    """The change `text` states, with the words of its slot (`engine.nlp.topic_spans`: nouns,
    and in Chinese verbs that name a topic; lower case, tagged in the whole text), or None.

    >>> read_change("Bad news, the concert was cancelled.").slot
    ('concert',)
    >>> read_change("Last spring we migrated Atlas from Postgres to MySQL").slot
    ('atlas',)
    >>> read_change("The launch is set for November 20") is None
    True
    """
    rules = rules or update_rules()
    found = cue_of(text, rules)
    if found is None:
        return None
    rule, cue = found
    *_, another = _compiled(rules)
    bounds = slot_bounds(text, rule, cue, rules)
    nouns = (word for start, end, word in topic_spans(text) if any(a <= start and end <= b for a, b in bounds))
    slot = tuple(dict.fromkeys(n for n in nouns if n not in rules.not_slots))
    return Change(rule=rule.name, cue=cue.group(), slot=slot, slot_words=frozenset(tokenize(" ".join(slot))),
                  anothers=another.search(text) is not None)  # fmt: skip


def mentions_anothers(text: str, rules: UpdateRules | None = None) -> bool:
    """Whether `text` speaks of another person's thing ("my sister's flight", 我妹妹的航班)."""
    *_, another = _compiled(rules or update_rules())
    return another.search(text) is not None
