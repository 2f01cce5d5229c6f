"""What recall reads off an episode's text, computed once per episode: recalls score the same
candidates again and again, and a regex over every candidate's text costs a millisecond a
recall.

Keyed by the episode id, the text's hash and the other arguments, so that the memo holds
nothing of a memory's content (a forgotten one leaves no text behind) and a changed text is
computed again. Emptied when full.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["EpisodeMemo"]

_T = TypeVar("_T")


class EpisodeMemo(Generic[_T]):
    """`compute(text, *args)` of an episode, remembered for up to `limit` episodes.

    >>> calls = []
    >>> words = EpisodeMemo(lambda text: calls.append(text) or len(text.split()))
    >>> words("e1", "two words"), words("e1", "two words"), words("e1", "now three words")
    (2, 2, 3)
    >>> len(calls)
    2
    """

    def __init__(self, compute: Callable[..., _T], limit: int = 8192) -> None:
        self._compute = compute
        self._limit = limit
        self._values: dict[tuple[Hashable, ...], _T] = {}

    def __call__(self, episode_id: str, text: str, *args: Hashable) -> _T:
        key = (episode_id, hash(text), *args)
        try:
            return self._values[key]
        except KeyError:
            pass
        if len(self._values) >= self._limit:
            self._values.clear()
        value = self._values[key] = self._compute(text, *args)
        return value
