"""Reflection's word lists are data (engine/rules/words/): each file belongs to one module of
engine/reflect, every list in it is read there, none repeats a word, and a malformed list is
refused with its file and name."""

from __future__ import annotations

import importlib
import pkgutil
import tomllib
from pathlib import Path

import pytest

import engine.reflect
from engine.reflect import word_lists
from engine.reflect.word_lists import WORDS_DIR, unread


def _import_reflection() -> set[str]:
    names = {m.name for m in pkgutil.iter_modules(engine.reflect.__path__)}
    for name in names:
        importlib.import_module(f"engine.reflect.{name}")
    return names


def test_every_list_belongs_to_a_module_that_reads_it() -> None:
    modules = _import_reflection()
    files = {path.stem for path in WORDS_DIR.glob("*.toml")}
    assert files and files <= modules, files - modules
    assert unread() == {}


@pytest.mark.parametrize("path", sorted(WORDS_DIR.glob("*.toml")), ids=lambda p: p.stem)
def test_no_list_repeats_a_word(path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    lists = {key: value for key, value in data.items() if isinstance(value, list)}
    for key, table in data.items():  # a table's lists, and no word in two of them
        if isinstance(table, dict):
            lists |= {f"{key}.{name}": words for name, words in table.items()}
            lists[key] = [word for words in table.values() for word in words]
    repeated = {key: sorted({w for w in words if words.count(w) > 1}) for key, words in lists.items()}
    assert {key: words for key, words in repeated.items() if words} == {}


def test_a_malformed_list_is_refused_naming_its_file_and_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sample.toml").write_text('good = ["tea", "coffee"]\nspaced = ["tea ", "coffee"]\nnumbers = [1, 2]\n'
                                          '[drinks]\nhot = ["tea", "coffee"]\ncold = [""]\n', encoding="utf-8")  # fmt: skip
    monkeypatch.setattr(word_lists, "WORDS_DIR", tmp_path)
    monkeypatch.setattr(word_lists, "_LOADED", {})  # the real files' record stays as it was
    monkeypatch.setattr(word_lists, "_READ", {})
    words = word_lists.WordLists("sample")
    assert word_lists.unread() == {"sample": ["drinks", "good", "numbers", "spaced"]}
    assert words("good") == frozenset({"tea", "coffee"}) and words.ordered("good") == ("tea", "coffee")
    with pytest.raises(ValueError, match=r"sample.toml: drinks.cold must be a list of words"):
        words.table("drinks")
    with pytest.raises(ValueError, match="sample.toml: good must be a table of word lists"):
        words.table("good")
    for key in ("spaced", "numbers"):
        with pytest.raises(ValueError, match=f"sample.toml: {key} must be a list of words"):
            words(key)
    with pytest.raises(KeyError, match="sample.toml holds no word list 'missing'"):
        words("missing")
    assert word_lists.unread() == {}
