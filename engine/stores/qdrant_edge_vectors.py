"""The embedded vector store on Qdrant Edge (Qdrant's engine in process, on disk).

One shard per embedding model, named with the model and dimension. Each point holds a dense
vector ("dense", cosine) and a BM25 sparse vector ("bm25", IDF applied by Qdrant at query time,
counted over the searched namespace's live points); where the shard has these spaces, its
dense vector again with its sentences' vectors ("sentences", cosine, a multivector scored by
its nearest: MaxSim), and for CJK text one in the multilingual space ("multilingual", cosine).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from engine.errors import StoreUnavailable, WriteFailed
from engine.stores.vectors import DenseSpace, SparseVector, VectorHit, VectorPayload, VectorPoint

__all__ = ["QdrantEdgeVectorStore"]

DENSE = "dense"
SENTENCES = "sentences"
MULTILINGUAL = "multilingual"
SPARSE = "bm25"
log = logging.getLogger(__name__)
# Payload fields searched by every query get an index; `recent` orders by occurred_at.
# Only the namespace's index adds links to the HNSW graph, so that a mid-sized namespace's
# filtered search keeps a graph of its own points. Qdrant links the points of every block
# of an indexed field's values above ~6.7k points (full_scan_threshold); an index on
# occurred_at's ranges would double the dense graph's links and make a filtered search for 50
# about half again as slow. No vector search filters by the other fields alone.
_INDEXED: dict[str, Any] = {
    "namespace": qe.PayloadSchemaType.Keyword,
    "deleted": qe.IntegerIndexParams(lookup=True, range=False, enable_hnsw=False),
    "session_id": qe.KeywordIndexParams(enable_hnsw=False),
    "occurred_at": qe.FloatIndexParams(enable_hnsw=False),
}


class QdrantEdgeVectorStore:
    """`VectorStore` on a Qdrant Edge shard under `directory` (created when missing)."""

    def __init__(
        self,
        directory: Path,
        dimension: int,
        *,
        multilingual: int | None = None,
        search_threads: int | None = None,
        index_threshold_kb: int | None = None,
    ) -> None:
        """`multilingual`: the dimension of the multilingual space (None: the shard has none).
        `search_threads`: the shard's search pool; 0: one thread per core; None: Qdrant
        Edge's own (four a core), or what an existing shard was last opened with.
        `index_threshold_kb`: a segment, or the points a filter leaves, with more vectors
        than this (in KB) is searched through the HNSW graph, which `optimize` builds; with
        fewer, exhaustively. None: Qdrant's own (10 MB), or what the shard has."""
        self._lock = threading.RLock()
        self._closed = False
        # A shard made before the sentences space keeps working without it: Qdrant cannot add
        # a vector to existing segments, and `doctor --rebuild-vectors` makes a shard with it.
        self._spaces = {DENSE, SENTENCES} | ({MULTILINGUAL} if multilingual else set())
        existing = _vector_names(directory)
        if existing is not None and SENTENCES not in existing:
            self._spaces.discard(SENTENCES)
            log.warning("the vector store at %s has no sentence vectors: "
                        "`hindsight doctor --rebuild-vectors` rebuilds it with them", directory)  # fmt: skip
        threads = (os.cpu_count() or 1) if search_threads == 0 else search_threads
        indexing: dict[str, Any] = {}
        if index_threshold_kb is not None:
            indexing = {
                "optimizers": qe.EdgeOptimizersConfig(indexing_threshold=index_threshold_kb),
                # m and ef_construct as Qdrant's defaults; only the threshold is ours.
                "hnsw_config": qe.HnswIndexConfig(m=16, ef_construct=100, full_scan_threshold=index_threshold_kb),
            }
        dense = {DENSE: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)}
        if SENTENCES in self._spaces:
            dense[SENTENCES] = qe.EdgeVectorParams(
                size=dimension, distance=qe.Distance.Cosine,
                multivector_config=qe.MultiVectorConfig(qe.MultiVectorComparator.MaxSim),
            )  # fmt: skip
        if multilingual:
            dense[MULTILINGUAL] = qe.EdgeVectorParams(size=multilingual, distance=qe.Distance.Cosine)
        config = qe.EdgeConfig(
            vectors=dense,
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            max_search_threads=threads,
            **indexing,
        )
        try:
            if (directory / "edge_config.json").exists() or _has_segments(directory):
                # With a config, load checks it against the shard and keeps what it leaves
                # unset as the shard has it; what it sets, the next `optimize` converges to.
                given = threads is not None or bool(indexing)
                self._shard = qe.EdgeShard.load(str(directory), config if given else None)
            else:
                directory.mkdir(parents=True, exist_ok=True)
                self._shard = qe.EdgeShard.create(str(directory), config)
            self._index_payload()
        except Exception as exc:  # the binding raises plain Exceptions (a locked WAL, say)
            raise StoreUnavailable(
                f"cannot open the vector store at {directory}: {exc} (it mirrors the graph: "
                "`hindsight doctor --rebuild-vectors` sets it aside and rebuilds it)"
            ) from exc

    def _index_payload(self) -> None:
        """Also on load: a shard from an older version may lack a newer index, or have one
        that adds HNSW links. A replaced index leaves the links already built; segments
        built from then on have none."""
        present = self._shard.info().payload_schema
        for field, schema in _INDEXED.items():
            index = present.get(field)
            if index is not None and _links_of(index.params) == _links_of(schema):
                continue
            if index is not None:
                self._shard.update(qe.UpdateOperation.delete_field_index(field))
            self._shard.update(qe.UpdateOperation.create_field_index(field, schema))

    def _update(self, operation: Any) -> None:
        with self._lock:
            try:
                self._shard.update(operation)
            except Exception as exc:  # the binding raises plain Exceptions
                raise WriteFailed(f"vector store update failed: {exc}") from exc

    def upsert(self, points: Sequence[VectorPoint]) -> None:
        if not points:
            return
        converted = [
            qe.Point(point.id, self._vectors_of(point), point.payload.model_dump()) for point in points
        ]
        self._update(qe.UpdateOperation.upsert_points(converted))

    def _vectors_of(self, point: VectorPoint) -> dict[str, Any]:
        vectors: dict[str, Any] = {
            DENSE: list(point.dense),
            SPARSE: qe.SparseVector(point.sparse.indices, point.sparse.values),
        }
        if SENTENCES in self._spaces:
            vectors[SENTENCES] = point.sentence_space()
        if point.multilingual is not None and MULTILINGUAL in self._spaces:
            vectors[MULTILINGUAL] = list(point.multilingual)
        return vectors

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self._update(qe.UpdateOperation.delete_points(list(ids)))

    def mark_deleted(self, ids: Sequence[str]) -> None:
        if ids:
            self._update(qe.UpdateOperation.set_payload(list(ids), {"deleted": 1}))

    def mark_live(self, ids: Sequence[str]) -> None:
        if ids:
            self._update(qe.UpdateOperation.set_payload(list(ids), {"deleted": 0}))

    def set_keyword(self, keys: Mapping[str, SparseVector], key_version: int) -> None:
        present: list[Any] = [str(p.id) for p in self._retrieve(list(keys), payload=False)]
        if not present:
            return
        self._update(
            qe.UpdateOperation.update_vectors(
                [
                    qe.PointVectors(i, {SPARSE: qe.SparseVector(keys[i].indices, keys[i].values)})
                    for i in present
                ]
            )
        )
        self._update(qe.UpdateOperation.set_payload(present, {"key_version": key_version}))

    def _query(
        self, namespace: str, query: Any, limit: int, within: tuple[float, float] | None = None,
        params: Any = None,
    ) -> list[VectorHit]:  # fmt: skip
        request = qe.QueryRequest(
            limit=limit, query=query, filter=_live_in(namespace, None, within), params=params
        )
        with self._lock:
            try:
                points = self._shard.query(request)
            except Exception as exc:
                raise StoreUnavailable(f"vector search failed: {exc}") from exc
        return [VectorHit(str(p.id), float(p.score)) for p in points]

    def search_dense(
        self, namespace: str, vector: Sequence[float], limit: int, *, space: DenseSpace = "dense",
        within: tuple[float, float] | None = None,
    ) -> list[VectorHit]:  # fmt: skip
        if space == SENTENCES and space not in self._spaces:
            space = "dense"
        if space not in self._spaces:
            return []
        return self._query(namespace, qe.Query.Nearest(list(vector), using=space), limit, within)

    def search_dense_batch(
        self, namespace: str, vectors: Sequence[Sequence[float]], limit: int
    ) -> list[list[VectorHit]]:
        if not vectors:
            return []
        requests = [
            qe.QueryRequest(
                limit=limit, query=qe.Query.Nearest(list(v), using=DENSE), filter=_live_in(namespace)
            )
            for v in vectors
        ]
        with self._lock:
            try:
                batches = self._shard.query_batch(qe.QueryBatchRequest(requests))
            except Exception as exc:
                raise StoreUnavailable(f"vector search failed: {exc}") from exc
        return [[VectorHit(str(p.id), float(p.score)) for p in points] for points in batches]

    def search_sparse(
        self, namespace: str, vector: SparseVector, limit: int, *,
        within: tuple[float, float] | None = None,
    ) -> list[VectorHit]:  # fmt: skip
        if not vector.indices:
            return []
        sparse = qe.SparseVector(vector.indices, vector.values)
        # IDF over the namespace's live points only: collection-wide statistics would let
        # one namespace's scores tell which words the others hold.
        params = qe.SearchParams(idf=qe.IdfParams(corpus=_live_in(namespace)))
        return self._query(namespace, qe.Query.Nearest(sparse, using=SPARSE), limit, within, params)

    def recent(
        self, namespace: str, session_id: str | None, limit: int,
        within: tuple[float, float] | None = None,
    ) -> list[str]:  # fmt: skip
        request = qe.ScrollRequest(
            limit=limit, filter=_live_in(namespace, session_id, within),
            with_payload=False, with_vector=False,
            order_by=qe.OrderBy("occurred_at", direction=qe.Direction.Desc),
        )  # fmt: skip
        with self._lock:
            try:
                records, _ = self._shard.scroll(request)
            except Exception as exc:
                raise StoreUnavailable(f"vector scroll failed: {exc}") from exc
        return [str(record.id) for record in records]

    def _retrieve(self, ids: Sequence[str], *, payload: bool, space: str | None = None) -> list[Any]:
        """The points of `ids`, with their payloads or not, and their vectors in one `space`
        (none: no vectors): a point's sentence vectors are several times its size."""
        if not ids:
            return []
        with self._lock:
            try:
                return list(self._shard.retrieve(list(ids), with_payload=payload, with_vector=[space] if space else False))
            except Exception as exc:
                raise StoreUnavailable(f"vector retrieve failed: {exc}") from exc

    def payloads(self, ids: Sequence[str]) -> dict[str, VectorPayload]:
        points = self._retrieve(ids, payload=True)
        return {str(p.id): VectorPayload.model_validate(p.payload) for p in points}

    def all_payloads(self) -> dict[str, VectorPayload]:
        found: dict[str, VectorPayload] = {}
        offset: Any = None
        while True:
            request = qe.ScrollRequest(offset=offset, limit=1000, with_payload=True, with_vector=False)
            with self._lock:
                try:
                    records, offset = self._shard.scroll(request)
                except Exception as exc:
                    raise StoreUnavailable(f"vector scroll failed: {exc}") from exc
            for record in records:
                found[str(record.id)] = VectorPayload.model_validate(record.payload)
            if offset is None:
                return found

    def dense(self, ids: Sequence[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        for point in self._retrieve(ids, payload=False, space=DENSE):
            vector = point.vector
            if isinstance(vector, dict):
                values = vector.get(DENSE)
                if isinstance(values, list):
                    found[str(point.id)] = [float(x) for x in values]
        return found

    def sentence_vectors(self, ids: Sequence[str]) -> dict[str, list[list[float]]]:
        if SENTENCES not in self._spaces:
            return {point_id: [vector] for point_id, vector in self.dense(ids).items()}
        found: dict[str, list[list[float]]] = {}
        for point in self._retrieve(ids, payload=False, space=SENTENCES):
            vector = point.vector
            if isinstance(vector, dict) and isinstance(rows := vector.get(SENTENCES), list):
                found[str(point.id)] = [[float(x) for x in row] for row in rows]
        return found

    def optimize(self) -> None:
        # Qdrant Edge has no background optimizer: without this, search stays exhaustive
        # (5 ms at 35k points, against 1 ms once indexed; indexing 35k points takes ~11 s).
        with self._lock:
            try:
                self._shard.optimize()
            except Exception as exc:
                raise WriteFailed(f"vector index build failed: {exc}") from exc

    def count(self, namespace: str | None, *, exact: bool = True) -> int:
        flt = None if namespace is None else _live_in(namespace) if exact else _all_in(namespace)
        with self._lock:
            try:
                return int(self._shard.count(qe.CountRequest(filter=flt, exact=exact)))
            except Exception as exc:
                raise StoreUnavailable(f"vector count failed: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            if self._closed:  # closing twice is harmless, as for every store
                return
            self._closed = True
            self._shard.flush()
            self._shard.close()


def _live_in(
    namespace: str, session_id: str | None = None, within: tuple[float, float] | None = None
) -> Any:
    must: list[Any] = [qe.FieldCondition("namespace", match=qe.MatchValue(namespace))]
    if session_id is not None:
        must.append(qe.FieldCondition("session_id", match=qe.MatchValue(session_id)))
    if within is not None:
        start, end = within
        must.append(qe.FieldCondition("occurred_at", range=qe.RangeFloat(gte=start, lt=end)))
    return qe.Filter(must=must, must_not=[qe.FieldCondition("deleted", match=qe.MatchValue(1))])


def _all_in(namespace: str) -> Any:
    """The namespace's points, forgotten ones too: one condition, so that an estimate reads
    its own index entry alone. With `deleted` beside it, Qdrant scales the estimate by the
    whole shard's forgotten share, and one namespace's size would tell of another's forgetting."""
    return qe.Filter(must=[qe.FieldCondition("namespace", match=qe.MatchValue(namespace))])


def _links_of(schema: Any) -> bool:
    """Whether an index of this schema adds HNSW links (a bare type, or params left unset, do)."""
    return getattr(schema, "enable_hnsw", None) is not False


def _vector_names(directory: Path) -> set[str] | None:
    """The dense vectors an existing shard was made with; None for a new one, none at all for
    one whose config cannot be read (opening it then reports that)."""
    try:
        config = json.loads((directory / "edge_config.json").read_text())
    except (OSError, ValueError):
        return set() if _has_segments(directory) else None
    vectors = config.get("vectors") if isinstance(config, dict) else None
    return set(vectors) if isinstance(vectors, dict) else None


def _has_segments(directory: Path) -> bool:
    return directory.exists() and any(directory.iterdir())
