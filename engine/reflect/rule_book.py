"""The rules reflection reads facts by, as `engine/rules/statements.toml` declares them: each
under the name a FACT edge keeps in `rule`, with what it reads (`about`), where it runs
(`code`), and for a statement rule its examples and counterexamples, which
tests/test_rule_book.py reads through the rules. A rule with a `tokens` table is declared in
data alone: its token patterns are the rule (`engine.reflect.token_rules`).

`engine/rules/precision.json` holds each statement rule's facts and the share of them that
match the gold set's development part (`bench.semantic --write-precision`); a rule below the
floor the settings give is off (`rules_off`)."""

from __future__ import annotations

import json
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BOOK", "PRECISION", "RuleEntry", "RuleExample", "RulePrecision", "rule_book", "rules_off"]

BOOK = Path(__file__).resolve().parents[1] / "rules" / "statements.toml"
REFUSALS = BOOK.with_name("refusals.toml")
PRECISION = BOOK.with_name("precision.json")


class RuleExample(BaseModel):
    """A text and one statement the rule must read from it."""

    model_config = ConfigDict(extra="forbid")

    text: str
    predicate: str
    object: str
    negated: bool = False


class TokenRule(BaseModel):
    """A rule that is data all through (`engine.reflect.token_rules` runs it): spaCy `Matcher`
    patterns over a sentence's words, the predicate a match states of the speaker, and the
    clause subjects it allows (a sentence with another subject is someone else's)."""

    model_config = ConfigDict(extra="forbid")

    predicate: str = Field(min_length=1)
    subjects: list[str] = Field(min_length=1)
    patterns: list[list[dict[str, Any]]] = Field(min_length=1)


class RuleEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    about: str = Field(min_length=1)
    code: str
    examples: list[RuleExample] = Field(default_factory=list)
    counterexamples: list[str] = Field(default_factory=list)  # texts the rule reads nothing from
    tokens: TokenRule | None = None  # the rule's patterns, when it is declared in data alone


@cache
def rule_book() -> dict[str, RuleEntry]:
    """Every rule by name."""
    with BOOK.open("rb") as file:
        return {name: RuleEntry.model_validate(entry) for name, entry in tomllib.load(file).items()}


class Refusal(BaseModel):
    """A way a clause is found to state nothing (`engine.reflect.refusals`), with texts where
    it must say so of a verb and texts where it must not."""

    model_config = ConfigDict(extra="forbid")

    about: str = Field(min_length=1)
    examples: list[str] = Field(min_length=1)
    counterexamples: list[str] = Field(default_factory=list)


@cache
def refusal_book() -> dict[str, Refusal]:
    """Every refusal by name."""
    with REFUSALS.open("rb") as file:
        return {name: Refusal.model_validate(entry) for name, entry in tomllib.load(file).items()}


class RulePrecision(BaseModel):
    """A rule's facts on the development part, and how many of them match a gold fact."""

    model_config = ConfigDict(extra="forbid")

    facts: int = Field(ge=0)
    matched: int = Field(ge=0)


@cache
def _measured(path: Path) -> dict[str, RulePrecision]:
    with path.open(encoding="utf-8") as file:
        return {name: RulePrecision.model_validate(counts) for name, counts in json.load(file)["rules"].items()}


def rules_off(floor: float, min_facts: int, path: Path = PRECISION) -> frozenset[str]:
    """The rules whose precision, over at least `min_facts` facts, is below `floor`."""
    return frozenset(name for name, m in _measured(path).items()
                     if m.facts >= min_facts and m.matched < floor * m.facts)  # fmt: skip
