"""The refusals of English clauses (`engine.reflect.refusals`) against their declarations
(`engine/rules/refusals.toml`): every name the code returns is declared, every declared one is
returned somewhere, and each fires on its examples and on none of its counterexamples."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.nlp import parse_english
from engine.reflect.refusals import read_clause
from engine.reflect.rule_book import refusal_book

_CODE = Path(__file__).resolve().parents[1] / "engine" / "reflect" / "refusals.py"


def _refused(text: str) -> set[str]:
    """The refusal of each verb of `text` that is refused."""
    (doc,) = parse_english([text])
    return {r for v in doc if v.pos_ in ("VERB", "AUX") and isinstance(r := read_clause(v), str)}


def test_the_code_returns_exactly_the_declared_refusals() -> None:
    returned = set(re.findall(r'return "([a-z_]+)"', _CODE.read_text(encoding="utf-8")))
    assert returned == set(refusal_book())


@pytest.mark.parametrize("name", sorted(refusal_book()))
def test_a_refusal_fires_on_its_examples_and_not_its_counterexamples(name: str) -> None:
    refusal = refusal_book()[name]
    for text in refusal.examples:
        assert name in _refused(text), text
    for text in refusal.counterexamples:
        assert name not in _refused(text), text


def test_a_malformed_refusal_is_refused() -> None:
    from pydantic import ValidationError

    from engine.reflect.rule_book import Refusal

    assert Refusal.model_validate({"about": "x", "examples": ["I used to."]}).examples
    for broken in ({"about": "", "examples": ["x"]}, {"about": "x", "examples": []},
                   {"about": "x", "examples": ["x"], "pattern": "y"}):  # fmt: skip
        with pytest.raises(ValidationError):
            Refusal.model_validate(broken)
