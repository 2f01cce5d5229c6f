"""Every rule a fact can name is declared in engine/rules/statements.toml, and a statement
rule reads each of its examples and none of its counterexamples, through the rules as they run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.reflect.rule_book import rule_book
from engine.reflect.run import statements_of

_REFLECT = Path(__file__).resolve().parents[1] / "engine" / "reflect"
# A rule's name where the code gives it: rule="...", by_rule("...", a pattern table's "zh.fan",
# and rule = "..." if ... else "...".
_NAMED = re.compile(r'rule = "([a-z ]+)" if .* else "([a-z ]+)"|(?:rule=|by_rule\(|rule = )"([a-z_. ]+)"|"((?:en|zh)\.[a-z_]+)"')


def test_the_book_declares_every_rule_the_code_names_and_no_other() -> None:
    named = {m for path in _REFLECT.glob("*.py") for found in _NAMED.findall(path.read_text(encoding="utf-8"))
             for m in found if m}  # fmt: skip
    assert "zh.verb" in named and "lesson" in named  # the search finds both kinds of name
    assert named - set(rule_book()) == set()
    assert set(rule_book()) - named == {"statement"}  # the name before rules were named, still in old stores
    for entry in rule_book().values():
        assert (_REFLECT.parents[1] / entry.code).is_file(), entry.code


_STATEMENT_RULES = sorted(name for name in rule_book() if name.startswith(("en.", "zh.")))


@pytest.mark.parametrize("rule", _STATEMENT_RULES)
def test_a_statement_rule_reads_its_examples_and_none_of_its_counterexamples(rule: str) -> None:
    entry = rule_book()[rule]
    assert entry.examples, f"{rule} has no example"
    texts = [e.text for e in entry.examples] + entry.counterexamples
    read = statements_of(texts, ["user"] * len(texts))
    for example, statements in zip(entry.examples, read, strict=False):
        found = {(s.predicate, s.object.rstrip("."), s.negated) for s in statements if s.rule == rule}
        assert (example.predicate, example.object, example.negated) in found, (example.text, found)
    wrongly = [t for t, statements in zip(entry.counterexamples, read[len(entry.examples) :], strict=True)
               if any(s.rule == rule for s in statements)]  # fmt: skip
    assert wrongly == []
