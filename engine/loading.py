"""Models loaded once per process, whichever thread asks first (`loaded_once`); the engine's
loaders use it, and `engine.warm` calls them all at start."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["loaded_once"]

T = TypeVar("T")


def loaded_once(load: Callable[[], T]) -> Callable[[], T]:
    """A loader with no arguments, run at most once however many threads ask at the same
    time: the others wait for its value (a model loaded twice holds its memory twice).

    >>> calls = []
    >>> model = loaded_once(lambda: calls.append(1) or "model")
    >>> model(), model(), len(calls)
    ('model', 'model', 1)
    """
    lock = threading.Lock()
    loaded: list[T] = []

    @functools.wraps(load)
    def get() -> T:
        if not loaded:
            with lock:
                if not loaded:
                    loaded.append(load())
        return loaded[0]

    return get
