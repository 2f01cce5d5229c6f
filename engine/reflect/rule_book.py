"""The rules reflection reads facts by, as `engine/rules/statements.toml` declares them: each
under the name a FACT edge keeps in `rule`, with what it reads (`about`), where it runs
(`code`), and for a statement rule its examples and counterexamples, which
tests/test_rule_book.py reads through the rules."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BOOK", "RuleEntry", "RuleExample", "rule_book"]

BOOK = Path(__file__).resolve().parents[1] / "rules" / "statements.toml"


class RuleExample(BaseModel):
    """A text and one statement the rule must read from it."""

    model_config = ConfigDict(extra="forbid")

    text: str
    predicate: str
    object: str
    negated: bool = False


class RuleEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    about: str = Field(min_length=1)
    code: str
    examples: list[RuleExample] = Field(default_factory=list)
    counterexamples: list[str] = Field(default_factory=list)  # texts the rule reads nothing from


@cache
def rule_book() -> dict[str, RuleEntry]:
    """Every rule by name."""
    with BOOK.open("rb") as file:
        return {name: RuleEntry.model_validate(entry) for name, entry in tomllib.load(file).items()}
