"""Models loaded once per process, whichever thread asks first (`loaded_once`); the engine's
loaders use it, and `engine.warm` calls them all at start. `torch_hidden` keeps a loader from
importing torch it does not use."""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TypeVar

__all__ = ["loaded_once", "torch_hidden"]

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


class _TorchHidden(MetaPathFinder):
    """Fails the imports of torch made by one thread; any other thread's import goes on."""

    def __init__(self, thread: int) -> None:
        self._thread = thread

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if threading.get_ident() == self._thread and fullname.split(".")[0] == "torch":
            raise ModuleNotFoundError(f"torch is hidden while this thread loads a model: {fullname}", name=fullname)
        return None


@contextmanager
def torch_hidden() -> Iterator[None]:
    """While inside, this thread's `import torch` fails as if torch were not installed, unless
    torch is already imported. thinc (spaCy's) imports torch where it is installed, ~1.8 s,
    though the spaCy models loaded here never run on it; other threads import it as usual.
    """
    finder = _TorchHidden(threading.get_ident())
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
