"""The word lists reflection reads by, kept as data: `engine/rules/words/<module>.toml` holds
the lists of `engine/reflect/<module>.py`, each under its name in lower case, with the comment
that says what it is for. A person audits and edits the lists there; the modules hold the
rules that use them.

Every list read is noted, so a test can find a list that no rule reads (`unread`).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

__all__ = ["WORDS_DIR", "WordLists", "unread"]

WORDS_DIR = Path(__file__).resolve().parents[1] / "rules" / "words"
_LOADED: dict[str, set[str]] = {}  # module -> the keys its file holds
_READ: dict[str, set[str]] = {}  # module -> the keys read


class WordLists:
    """The lists of one module's data file: `words(key)` is the list under `key` as a set,
    `words.ordered(key)` in its order (a regular expression's alternatives), `words.table(key)`
    a table of lists by name.

    Raises (each naming the file and the key):
        KeyError: the file holds nothing of that name.
        ValueError: a list is not a list of words (non-empty text, no surrounding spaces).
    """

    def __init__(self, module: str) -> None:
        self._path = WORDS_DIR / f"{module}.toml"
        with self._path.open("rb") as file:
            self._data = tomllib.load(file)
        _LOADED[module] = set(self._data)
        self._read = _READ.setdefault(module, set())

    def __call__(self, key: str) -> frozenset[str]:
        return frozenset(self.ordered(key))

    def ordered(self, key: str) -> tuple[str, ...]:
        return self._words(key, self._value(key))

    def table(self, key: str) -> dict[str, tuple[str, ...]]:
        value = self._value(key)
        if not isinstance(value, dict):
            raise ValueError(f"{self._path.name}: {key} must be a table of word lists")
        return {name: self._words(f"{key}.{name}", words) for name, words in value.items()}

    def _value(self, key: str) -> object:
        if key not in self._data:
            raise KeyError(f"{self._path.name} holds no word list {key!r}")
        self._read.add(key)
        return self._data[key]

    def _words(self, key: str, value: object) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(w, str) and w.strip() == w and w for w in value):
            raise ValueError(f"{self._path.name}: {key} must be a list of words (non-empty text, no surrounding spaces)")
        return tuple(value)


def unread() -> dict[str, list[str]]:
    """The lists of each loaded file that no module has read."""
    return {module: sorted(keys - _READ.get(module, set())) for module, keys in _LOADED.items() if keys - _READ.get(module, set())}
