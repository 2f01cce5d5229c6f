"""What the models make of a query, computed once per recall whatever the namespaces read:
its analysis (`engine.recall.analysis`) and its embedding, started at
once beside the stores' reads where that leaves a core free."""

from __future__ import annotations

import os
from concurrent.futures import Executor, Future

from engine.embed import Embedder
from engine.embed.multilingual import needs_multilingual
from engine.recall.analysis import QueryAnalysis, analyse
from engine.settings import Settings
from engine.stores.vectors import DenseSpace

__all__ = ["QueryModels", "embeds_beside_reads", "query_models"]


class QueryModels:
    """What the models make of a query: computed once, whatever the namespaces searched.

    With `beside_reads` the embedding starts at once on `pool`, while the channels that
    need only the query's words (keyword, entity, recency) ask their stores: ONNX Runtime
    leaves the GIL while it computes, so a core the embedding leaves free runs the reads.
    Without, it is computed when first asked for, after those reads (~1 ms), on the calling
    thread: an embedding on every core and reads beside it only slow each other down, and
    recall's p95 is lower that way.
    """

    def __init__(
        self, query: str, now: float, embedder: Embedder, pool: Executor, *, beside_reads: bool
    ) -> None:
        self._query, self._embedder = query, embedder
        second = embedder.multilingual
        # A query in Chinese searches the multilingual space, where MiniLM would read noise.
        self.space: DenseSpace = "multilingual" if second and needs_multilingual(query) else "dense"
        self._searcher = second if second is not None and self.space == "multilingual" else embedder
        self._started: Future[list[list[float]]] | None = (
            pool.submit(self._searcher.embed, [query]) if beside_reads else None
        )
        self._search_vector: list[float] | None = None
        self._embedding: list[float] | None = None
        self.analysis: QueryAnalysis = analyse(query, now)
        self._side_vectors: list[list[float]] | None = None

    @property
    def search_vector(self) -> list[float]:
        """The query's vector in `space`, for the vector channel; computed, or waited for,
        the first time."""
        if self._search_vector is None:
            rows = self._started.result() if self._started is not None else self._searcher.embed([self._query])
            self._search_vector = rows[0]
        return self._search_vector

    @property
    def side_vectors(self) -> list[list[float]]:
        """The vectors of `sides` in `space`, in one batch, the first time asked for."""
        if self._side_vectors is None:
            sides = self.analysis.sides  # the two events a comparison names, each searched alone
            self._side_vectors = self._searcher.embed(list(sides)) if sides else []
        return self._side_vectors

    @property
    def embedding(self) -> list[float]:
        """The query's embedding by the main model (working memory compares it)."""
        if self.space == "dense":
            return self.search_vector
        if self._embedding is None:
            self._embedding = self._embedder.embed([self._query])[0]
        return self._embedding


def query_models(
    query: str, now: float, embedder: Embedder, pool: Executor, settings: Settings
) -> QueryModels:
    """Analyse the query asked at `now` (`engine.recall.analysis`) and embed it on `pool`: at
    once when the embedding leaves a core free for recall's reads, else when first asked for."""
    beside_reads = embeds_beside_reads(settings.embedder_query_threads, os.cpu_count() or 1)
    return QueryModels(query, now, embedder, pool, beside_reads=beside_reads)


def embeds_beside_reads(query_threads: int, cores: int) -> bool:
    """Whether a query's embedding leaves a core free for recall's reads (0 threads: all).

    >>> embeds_beside_reads(1, 2), embeds_beside_reads(0, 2), embeds_beside_reads(2, 2)
    (True, False, False)
    """
    return 0 < query_threads < cores
