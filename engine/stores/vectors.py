"""The vector mirror's role: points (a dense vector, sentence vectors, a keyword vector and a
payload per episode), searched by namespace; `VectorStore` is the protocol the Qdrant backends
implement, converting their errors to `StoreUnavailable` at the boundary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NamedTuple, Protocol

from pydantic import BaseModel

__all__ = ["DenseSpace", "SparseVector", "VectorHit", "VectorPayload", "VectorPoint", "VectorStore"]


class SparseVector(BaseModel):
    indices: list[int]
    values: list[float]


class VectorPayload(BaseModel):
    """What the vector mirror keeps beside each embedding, for filtering."""

    namespace: str
    session_id: str | None
    kind: str
    layer: str
    importance: float
    created_at: float
    occurred_at: float
    entities: list[str]
    deleted: int = 0  # 0 or 1: stored as an integer so payload filters match it exactly
    # The recipe of the point's keyword vector (engine/keyword_keys.py KEY_VERSION); points
    # written before the field existed read as 1, and `doctor --repair` rekeys them.
    key_version: int = 1


# The dense spaces: the main model's; the same model's again with the vectors of each
# point's sentences beside its own, a point scoring as the nearest of them; the multilingual
# model's, for CJK text.
DenseSpace = Literal["dense", "sentences", "multilingual"]


class VectorPoint(BaseModel):
    id: str
    dense: list[float]
    sparse: SparseVector
    payload: VectorPayload
    # The vector in the multilingual space, for text the dense model cannot read (CJK);
    # None for the rest (engine/embed/multilingual.py).
    multilingual: list[float] | None = None
    # The dense model's vectors of its sentences, when it has several (engine/ingest/sentences.py).
    sentences: list[list[float]] | None = None

    def sentence_space(self) -> list[list[float]]:
        """Its multivector in the "sentences" space: its own vector among its sentences', so
        that one search finds the nearest of them all."""
        return [list(self.dense), *(list(v) for v in self.sentences or ())]


class VectorHit(NamedTuple):
    """A point a search found, and its score. A tuple, not a model: a recall reads ~100,
    built by the store from the engine's typed values (as `EntityLink`)."""

    id: str
    score: float


class VectorStore(Protocol):
    """The vector mirror of episodes: dense embeddings and BM25 sparse vectors.

    Derived data: it can always be rebuilt from the graph. Every search filters by namespace
    and leaves out points marked deleted.
    """

    def upsert(self, points: Sequence[VectorPoint]) -> None:
        """Insert or replace points (durable when it returns).

        Raises:
            WriteFailed: nothing of this call may be relied on; the caller deletes the ids.
        """
        ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def mark_deleted(self, ids: Sequence[str]) -> None: ...

    def mark_live(self, ids: Sequence[str]) -> None:
        """Undo `mark_deleted` (a restored episode)."""
        ...

    def set_keyword(self, keys: Mapping[str, SparseVector], key_version: int) -> None:
        """Replace the BM25 vectors of existing points (and record the recipe in the payload);
        ids without a point are skipped."""
        ...

    def search_dense(
        self, namespace: str, vector: Sequence[float], limit: int, *, space: DenseSpace = "dense",
        within: tuple[float, float] | None = None,
    ) -> list[VectorHit]:  # fmt: skip
        """Cosine similarity search, in the dense model's space; in "sentences", where each
        point scores the nearest of its own vector and its sentences' (a store made before
        that space searches the dense one instead); or in the multilingual one, which holds
        only the points given a `multilingual` vector (a store opened without it finds
        nothing there). With `within`, among the points that happened in [start, end)."""
        ...

    def search_dense_batch(
        self, namespace: str, vectors: Sequence[Sequence[float]], limit: int
    ) -> list[list[VectorHit]]:
        """`search_dense` for several vectors at once, results in their order."""
        ...

    def search_sparse(
        self, namespace: str, vector: SparseVector, limit: int, *,
        within: tuple[float, float] | None = None,
    ) -> list[VectorHit]:  # fmt: skip
        """BM25 search: document weights stored, IDF applied at query time; `within` as for
        `search_dense`."""
        ...

    def recent(
        self, namespace: str, session_id: str | None, limit: int,
        within: tuple[float, float] | None = None,
    ) -> list[str]:  # fmt: skip
        """Ids of the latest points by `occurred_at` (of one session when given; with
        `within`, of those that happened in [start, end)), newest first: read from a payload
        index, where the graph would sort every episode."""
        ...

    def all_payloads(self) -> dict[str, VectorPayload]:
        """Every point's payload, by id (for `doctor`)."""
        ...

    def dense(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """The dense vectors of these points (missing ids are left out)."""
        ...

    def sentence_vectors(self, ids: Sequence[str]) -> dict[str, list[list[float]]]:
        """Each point's vectors in the "sentences" space: its own dense vector, then its
        sentences' in order (`VectorPoint.sentence_space`); the dense vector alone in a store
        made before that space. Missing ids are left out."""
        ...

    def payloads(self, ids: Sequence[str]) -> dict[str, VectorPayload]:
        """The stored payloads of these points (missing ids are left out), for checks and repair."""
        ...

    def optimize(self) -> None:
        """Build the search indexes (HNSW) over points written since the last time, where the
        backend does not do it by itself: until then their search is exhaustive."""
        ...

    def count(self, namespace: str | None, *, exact: bool = True) -> int:
        """Live points of a namespace (all points when None). `exact=False` may estimate
        the namespace's points, forgotten ones too, from its own payload index entry: far
        cheaper (0.03 ms against 7 ms at 35k points), for callers that only need a size, such
        as the hub threshold of recall. The estimate never depends on other namespaces."""
        ...

    def close(self) -> None: ...

