"""Models loaded once per process, whichever thread asks first: `loaded_once`, and `warm_up`,
which loads every model a first store or recall would otherwise wait for."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from engine.embed import Embedder

__all__ = ["loaded_once", "warm_up"]

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


def warm_up(embedder: Embedder) -> None:
    """Load what the first store, recall or reflection would wait for: the embedder's query
    and batch paths (and the multilingual space), spaCy's NER and parser, jieba and LAC."""
    from engine.nlp import find_entities, parse_english
    from engine.text import tokenize

    embedder.embed(["warming up"])
    embedder.embed(["warming up", "the batch path"])
    if embedder.multilingual is not None:
        embedder.multilingual.embed(["预热"])
    find_entities(["Dana met Sam in Berlin.", "王先生在北京工作。"])
    parse_english(["I moved to Berlin last year."])
    tokenize("预算改成50万")
