"""The wording patterns reflection reads by, kept as data: `engine/rules/patterns/<module>.toml`
holds the regular expressions of `engine/reflect/<module>.py`, each a table under its name in
lower case with what it is for (`about`), how the rules apply it (`use`), the pattern (text, or
a list of pieces joined in order), its flags, and the examples it must match (with the groups
they must capture) and the counterexamples it must not, which tests/test_patterns.py runs.
`${list}` in a pattern stands for the alternatives of that word list of the module's word file
(`engine.reflect.word_lists`).

Every pattern read is noted, so a test can find one that no rule reads (`unread`).
"""

from __future__ import annotations

import re
import tomllib
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.reflect.word_lists import WordLists

__all__ = ["PATTERNS_DIR", "Example", "PatternRule", "Patterns", "unread"]

PATTERNS_DIR = Path(__file__).resolve().parents[1] / "rules" / "patterns"
_LIST = re.compile(r"\$\{(?P<name>[a-z_]+)\}")
_FLAGS = {"IGNORECASE": re.IGNORECASE}
_LOADED: dict[str, set[str]] = {}  # module -> the patterns its file holds
_READ: dict[str, set[str]] = {}  # module -> the patterns read


class Example(BaseModel):
    """A text the pattern must match, and the groups it must capture there."""

    text: str
    groups: dict[str, str] = Field(default_factory=dict)


class PatternRule(BaseModel):
    """One named pattern as its file declares it."""

    model_config = ConfigDict(extra="forbid")

    about: str = Field(min_length=1)
    use: Literal["search", "match", "fullmatch", "finditer", "sub"] = "search"
    pattern: str | list[str]
    flags: list[Literal["IGNORECASE"]] = Field(default_factory=list)
    examples: list[str | dict[str, str]] = Field(min_length=1)
    counterexamples: list[str] = Field(default_factory=list)

    def source(self) -> str:
        return self.pattern if isinstance(self.pattern, str) else "".join(self.pattern)

    def cases(self) -> list[Example]:
        return [Example(text=e) if isinstance(e, str) else Example(text=e["text"], groups={k: v for k, v in e.items() if k != "text"})
                for e in self.examples]  # fmt: skip


class Patterns:
    """The patterns of one module's data file: `patterns(name)` is the compiled pattern.

    Raises (each naming the file and the pattern):
        KeyError: the file holds no pattern of that name.
        ValueError: the pattern's table is malformed, names a word list the module lacks, or
            does not compile.
    """

    def __init__(self, module: str) -> None:
        self.module = module
        self._path = PATTERNS_DIR / f"{module}.toml"
        with self._path.open("rb") as file:
            self._data = tomllib.load(file)
        _LOADED[module] = set(self._data)
        self._read = _READ.setdefault(module, set())

    def __call__(self, name: str) -> re.Pattern[str]:
        rule = self.rule(name)
        self._read.add(name)
        source = _LIST.sub(lambda m: self._alternatives(name, m["name"]), rule.source())
        flags = 0
        for flag in rule.flags:
            flags |= _FLAGS[flag]
        try:
            return re.compile(source, flags)
        except re.error as error:
            raise ValueError(f"{self._path.name}: {name} does not compile: {error}") from None

    def names(self) -> list[str]:
        return list(self._data)

    def rule(self, name: str) -> PatternRule:
        if name not in self._data:
            raise KeyError(f"{self._path.name} holds no pattern {name!r}")
        try:
            return PatternRule.model_validate(self._data[name])
        except ValidationError as error:
            fields = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
            raise ValueError(f"{self._path.name}: {name} is malformed ({fields})") from None

    @cached_property
    def _words(self) -> WordLists:
        """The module's word file, read once for all its patterns' lists."""
        return WordLists(self.module)

    def _alternatives(self, name: str, words: str) -> str:
        try:
            return "|".join(map(re.escape, self._words.ordered(words)))
        except (KeyError, FileNotFoundError):
            raise ValueError(f"{self._path.name}: {name} names a word list {words!r} that {self.module} lacks") from None


def unread() -> dict[str, list[str]]:
    """The patterns of each loaded file that no module has read."""
    return {module: sorted(names - _READ.get(module, set())) for module, names in _LOADED.items() if names - _READ.get(module, set())}
