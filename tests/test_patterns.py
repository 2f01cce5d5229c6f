"""Reflection's wording patterns are data (engine/rules/patterns/): every pattern is read by its
module, matches each of its examples the way its rules apply it (capturing the groups the
example names) and none of its counterexamples, and a malformed pattern is refused with its
file and name."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import engine.reflect
from engine.reflect import patterns
from engine.reflect.patterns import PATTERNS_DIR, Patterns, unread


def _applied(compiled: re.Pattern[str], use: str, text: str) -> re.Match[str] | None:
    if use in ("search", "sub"):  # `sub` rewrites where the pattern is found
        return compiled.search(text)
    if use == "finditer":
        return next(compiled.finditer(text), None)
    return compiled.match(text) if use == "match" else compiled.fullmatch(text)


def _all() -> list[tuple[str, str]]:
    return [(path.stem, name) for path in sorted(PATTERNS_DIR.glob("*.toml")) for name in Patterns(path.stem).names()]


def test_every_pattern_belongs_to_a_module_that_reads_it() -> None:
    modules = {m.name for m in pkgutil.iter_modules(engine.reflect.__path__)}
    for name in modules:
        importlib.import_module(f"engine.reflect.{name}")
    files = {path.stem for path in PATTERNS_DIR.glob("*.toml")}
    assert files and files <= modules, files - modules
    assert unread() == {}


@pytest.mark.parametrize(("module", "name"), _all(), ids=lambda v: v)
def test_a_pattern_matches_its_examples_and_none_of_its_counterexamples(module: str, name: str) -> None:
    rule = Patterns(module).rule(name)
    compiled = Patterns(module)(name)
    for example in rule.cases():
        found = _applied(compiled, rule.use, example.text)
        assert found is not None, f"{module}.{name} misses its example {example.text!r}"
        assert {k: found.group(k) for k in example.groups} == example.groups, example.text
    wrongly = [text for text in rule.counterexamples if _applied(compiled, rule.use, text) is not None]
    assert wrongly == [], f"{module}.{name} matches its counterexamples"


def test_a_malformed_pattern_is_refused_naming_its_file_and_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sample.toml").write_text(
        "[good]\nabout = 'tea'\npattern = ['te', 'a']\nexamples = [{ text = 'green tea' }]\n"
        "[bare]\nabout = 'no example'\npattern = 'tea'\nexamples = []\n"
        "[broken]\nabout = 'unbalanced'\npattern = '(tea'\nexamples = ['tea']\n"
        "[listed]\nabout = 'a list the module lacks'\npattern = '${drinks}'\nexamples = ['tea']\n"
        "[odd]\nabout = 'an unknown field'\npattern = 'tea'\nexamples = ['tea']\nweight = 2\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(patterns, "PATTERNS_DIR", tmp_path)
    monkeypatch.setattr(patterns, "_LOADED", {})  # the real files' record stays as it was
    monkeypatch.setattr(patterns, "_READ", {})
    sample = Patterns("sample")
    assert sample("good").search("green tea") is not None
    assert patterns.unread() == {"sample": ["bare", "broken", "listed", "odd"]}
    with pytest.raises(ValueError, match=r"sample.toml: bare is malformed \(examples: "):
        sample("bare")
    with pytest.raises(ValueError, match="sample.toml: broken does not compile"):
        sample("broken")
    with pytest.raises(ValueError, match="sample.toml: listed names a word list 'drinks' that sample lacks"):
        sample("listed")
    with pytest.raises(ValueError, match=r"sample.toml: odd is malformed \(weight: "):
        sample("odd")
    with pytest.raises(KeyError, match="sample.toml holds no pattern 'missing'"):
        sample("missing")
