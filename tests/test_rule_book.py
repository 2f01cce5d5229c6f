"""Every rule a fact can name is declared in engine/rules/statements.toml, a statement rule
reads each of its examples and none of its counterexamples, through the rules as they run, and
a rule whose measured precision is below the floor reads nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine import Memory, Settings
from engine.reflect.rule_book import PRECISION, rule_book, rules_off
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
    in_data = {name for name, entry in rule_book().items() if entry.tokens is not None}  # the data is the rule
    assert in_data and in_data.isdisjoint(named)
    assert set(rule_book()) - named - in_data == {"statement"}  # the name before rules were named, still in old stores
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


def test_a_rule_below_the_floor_over_enough_facts_is_off(tmp_path: Path) -> None:
    measured = tmp_path / "precision.json"
    measured.write_text(json.dumps({"measured_on": "a sample", "rules": {
        "en.weak": {"facts": 10, "matched": 7}, "en.strong": {"facts": 10, "matched": 9},
        "en.unproven": {"facts": 2, "matched": 0}}}), encoding="utf-8")  # fmt: skip
    assert rules_off(0.8, 5, measured) == {"en.weak"}
    assert rules_off(0.8, 2, measured) == {"en.weak", "en.unproven"}
    assert rules_off(0.9, 5, measured) == {"en.weak"}  # 9 of 10 is at the floor, not below it
    assert rules_off(0.0, 1, measured) == frozenset()
    assert set(json.loads(PRECISION.read_text(encoding="utf-8"))["rules"]) <= set(_STATEMENT_RULES)


def test_reflection_reads_nothing_by_a_rule_that_is_off(tmp_path: Path) -> None:
    text = rule_book()["en.clause"].examples[0]
    assert "en.clause" in rules_off(1.0, 1)  # below 100 % on the development part
    strict: dict[str, Any] = {"reflection_rule_floor": 1.0, "reflection_rule_min_facts": 1}
    found = {}
    for name, overrides in (("default", dict[str, Any]()), ("strict", strict)):
        with Memory.open(settings=Settings(data_dir=tmp_path / name, **overrides)) as memory:
            memory.store(text.text, role="user")
            memory.reflect()
            rows = memory.cypher("MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace "
                                 "RETURN f.rule, f.predicate, b.name").rows  # fmt: skip
            found[name] = {tuple(row) for row in rows}
    assert ("en.clause", text.predicate, text.object) in {(r, p, o.lower()) for r, p, o in found["default"]}
    assert not any(rule == "en.clause" for rule, _, _ in found["strict"])


def test_a_token_rule_is_refused_when_malformed() -> None:
    from pydantic import ValidationError

    from engine.reflect.rule_book import RuleEntry

    good = {"about": "x", "code": "engine/reflect/token_rules.py",
            "tokens": {"predicate": "uses", "subjects": ["i"], "patterns": [[{"LOWER": "mostly"}]]}}
    assert RuleEntry.model_validate(good).tokens is not None
    for broken in ({"predicate": "", "subjects": ["i"], "patterns": [[{"LOWER": "x"}]]},
                   {"predicate": "uses", "subjects": [], "patterns": [[{"LOWER": "x"}]]},
                   {"predicate": "uses", "subjects": ["i"], "patterns": []},
                   {"predicate": "uses", "subjects": ["i"], "patterns": [[{"LOWER": "x"}]], "object": "PROPN"}):
        with pytest.raises(ValidationError):
            RuleEntry.model_validate({**good, "tokens": broken})
