"""The word lists reflection reads by, kept as data: `engine/rules/words/<module>.toml` holds
the lists of `engine/reflect/<module>.py`, each under its name in lower case, with the comment
that says what it is for. A person audits and edits the lists there; the modules hold the
rules that use them.

Every list read is noted, so a test can find a list that no rule reads (`unread`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

__all__ = ["WORDS_DIR", "unread", "word_lists"]

WORDS_DIR = Path(__file__).resolve().parents[1] / "rules" / "words"
_LOADED: dict[str, set[str]] = {}  # module -> the keys its file holds
_READ: dict[str, set[str]] = {}  # module -> the keys read


def word_lists(module: str) -> Callable[[str], frozenset[str]]:
    """A reader of the lists of `module`'s data file: `words(key)` is the list under `key`.

    Raises:
        ValueError: a list is not a list of non-empty text (names the file and the key).
        KeyError: the file holds no list of that name.
    """
    path = WORDS_DIR / f"{module}.toml"
    with path.open("rb") as file:
        data = tomllib.load(file)
    _LOADED[module] = set(data)
    read = _READ.setdefault(module, set())

    def words(key: str) -> frozenset[str]:
        if key not in data:
            raise KeyError(f"{path.name} holds no word list {key!r}")
        value = data[key]
        if not isinstance(value, list) or not all(isinstance(w, str) and w.strip() == w and w for w in value):
            raise ValueError(f"{path.name}: {key} must be a list of words (non-empty text, no surrounding spaces)")
        read.add(key)
        return frozenset(value)

    return words


def unread() -> dict[str, list[str]]:
    """The lists of each loaded file that no module has read."""
    return {module: sorted(keys - _READ.get(module, set())) for module, keys in _LOADED.items() if keys - _READ.get(module, set())}
