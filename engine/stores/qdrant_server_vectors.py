"""The production vector store on a Qdrant server (single node or distributed), through
`qdrant-client`.

One collection per embedding model, named with the model and dimension, holding the same
vectors as the embedded store: "dense" (cosine), "bm25" (sparse: each term's BM25 weight in the
point; the query's weights are each term's IDF over the searched namespace's live points,
counted here, so that no namespace's scores move with another's words on any server version)
and, where the collection has these spaces, "sentences" (each point's dense vector again with
its sentences' vectors: cosine, a multivector scored by its nearest) and "multilingual" for
CJK text (cosine). Payload indexes on the fields every search filters on; the namespace's is
the tenant index (Qdrant builds a point graph per namespace above the indexing threshold), and
`terms` (each point's sparse indices) answers how many of a namespace's points hold a term.
On a cluster a collection is made with the shards and copies asked for, and a request that
finds no server is retried (every write is idempotent: upserts, updates and deletes by id).
The same class runs on `qdrant-client`'s local mode (`QdrantClient(location=":memory:")` or
`path=`), which emulates the server's API; the tests use it.
"""

from __future__ import annotations

import math
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc
from qdrant_client import QdrantClient
from qdrant_client import models as qm
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from engine.errors import StoreUnavailable, WriteFailed
from engine.stores.retry import Retry
from engine.stores.vectors import DenseSpace, SparseVector, VectorHit, VectorPayload, VectorPoint

__all__ = ["QdrantServerVectorStore"]

DENSE = "dense"
SENTENCES = "sentences"
MULTILINGUAL = "multilingual"
SPARSE = "bm25"
TERMS = "terms"  # a point's sparse indices, in its payload: the document frequencies
_INDEXED: dict[str, qm.PayloadSchemaType | qm.KeywordIndexParams] = {
    "namespace": qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, is_tenant=True),
    TERMS: qm.PayloadSchemaType.INTEGER,
    "deleted": qm.PayloadSchemaType.INTEGER,
    "session_id": qm.PayloadSchemaType.KEYWORD,
    "occurred_at": qm.PayloadSchemaType.FLOAT,  # `recent` orders by it
    "kind": qm.PayloadSchemaType.KEYWORD,
    "created_at": qm.PayloadSchemaType.FLOAT,
}
# Points per upsert request: bounded so that one request stays well under the server's
# 32 MB default body limit (a 384-d point with its sparse vector is a few KB).
_UPSERT_CHUNK = 256
# Counts kept at most before the cache starts again (a few MB).
_COUNTS_KEPT = 100_000
# A point's payload as the engine reads it: its terms are the store's own.
_PAYLOAD = qm.PayloadSelectorExclude(exclude=[TERMS])
_ERRORS = (UnexpectedResponse, ResponseHandlingException, grpc.RpcError, ValueError, RuntimeError, OSError)
# gRPC answers that say the server is away or busy, not that the request was wrong.
_TRANSIENT_GRPC = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.ABORTED,
                   grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}  # fmt: skip
_T = TypeVar("_T")
_I = TypeVar("_I")


class QdrantServerVectorStore:
    """`VectorStore` on `collection` of the Qdrant reached by `client` (created when missing)."""

    def __init__(
        self,
        client: QdrantClient,
        collection: str,
        dimension: int,
        *,
        multilingual: int | None = None,
        attempts: int = 1,
        request_attempts: int = 1,
        shards: int | None = None,
        replication: int = 1,
        count_threads: int = 1,
        idf_seconds: float = 0.0,
    ) -> None:
        """`multilingual`: the dimension of the multilingual space (None: no such space);
        `attempts` at the first request (a server starting beside us), `request_attempts` at
        each later one that fails for want of a server; `shards` and `replication` (copies of
        each shard) when the collection is created (None: the server's choice);
        `count_threads`: the counts of a keyword query's IDF sent at once; `idf_seconds`: how
        long a count is reused while this store writes nothing (0: never)."""
        self._client = client
        self._collection = collection
        self._retry = Retry(_ERRORS, request_attempts, transient=_transient)
        self._counting = ThreadPoolExecutor(count_threads, thread_name_prefix="hindsight-qdrant-count")
        self._counts = _Counts(idf_seconds)
        self._spaces = {DENSE, SENTENCES} | ({MULTILINGUAL} if multilingual else set())
        dense = {
            DENSE: qm.VectorParams(size=dimension, distance=qm.Distance.COSINE),
            SENTENCES: qm.VectorParams(
                size=dimension, distance=qm.Distance.COSINE,
                multivector_config=qm.MultiVectorConfig(comparator=qm.MultiVectorComparator.MAX_SIM),
            ),
        }  # fmt: skip
        if multilingual:
            dense[MULTILINGUAL] = qm.VectorParams(size=multilingual, distance=qm.Distance.COSINE)
        try:
            # A server started beside us may not accept connections yet: retry the first call.
            exists = Retry(_ERRORS, attempts, transient=_transient)(
                lambda: client.collection_exists(collection), "Qdrant"
            )
            if not exists:
                client.create_collection(collection, vectors_config=dense,
                                         sparse_vectors_config={SPARSE: qm.SparseVectorParams()},
                                         shard_number=shards, replication_factor=replication)  # fmt: skip
            info = client.get_collection(collection)
            sparse = (info.config.params.sparse_vectors or {}).get(SPARSE)
            if sparse is not None and sparse.modifier == qm.Modifier.IDF:
                # A collection an older version made: the server's IDF counts every namespace's
                # words. The query carries the namespace's own from now on.
                client.update_collection(collection, sparse_vectors_config={
                    SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.NONE)})  # fmt: skip
            # A collection made before the sentences space keeps working without it.
            made_with = info.config.params.vectors
            if not isinstance(made_with, dict) or SENTENCES not in made_with:
                self._spaces.discard(SENTENCES)
            # Also for an existing collection: one from an older version may lack a newer index.
            present = set(info.payload_schema or {})
            with warnings.catch_warnings():
                # Local mode warns that payload indexes have no effect there; on a server
                # they are what keeps filtered search fast.
                warnings.simplefilter("ignore", UserWarning)
                for field, schema in _INDEXED.items():
                    if field not in present:
                        client.create_payload_index(collection, field, schema, wait=True)
            if TERMS not in present and exists:
                self._backfill_terms()
        except _ERRORS as exc:
            raise StoreUnavailable(f"cannot open the Qdrant collection {collection}: {exc}") from exc

    def _backfill_terms(self) -> None:
        """Give every point of a collection an older version made its `terms` payload."""
        offset: Any = None
        while True:
            records, offset = self._client.scroll(self._collection, limit=256, offset=offset, with_payload=False,
                                                  with_vectors=[SPARSE])  # fmt: skip
            operations = [_set_terms(str(r.id), _indices(r)) for r in records]
            if operations:
                self._client.batch_update_points(self._collection, operations, wait=True)
            if offset is None:
                return

    def _call(self, what: str, action: Callable[[], _T], error: type[StoreUnavailable] = StoreUnavailable) -> _T:
        try:
            return self._retry(action, "Qdrant")
        except StoreUnavailable as exc:  # retried in vain
            raise error(f"vector {what} failed: {exc}") from exc.__cause__
        except _ERRORS as exc:
            raise error(f"vector {what} failed: {exc}") from exc

    def upsert(self, points: Sequence[VectorPoint]) -> None:
        structs = [
            qm.PointStruct(id=point.id, vector=self._vectors_of(point),
                           payload={**point.payload.model_dump(), TERMS: list(point.sparse.indices)})
            for point in points
        ]  # fmt: skip
        self._in_chunks("upsert", structs, lambda chunk: self._client.upsert(self._collection, chunk, wait=True))

    def _vectors_of(self, point: VectorPoint) -> dict[str, Any]:
        vectors: dict[str, Any] = {
            DENSE: list(point.dense),
            SPARSE: qm.SparseVector(indices=point.sparse.indices, values=point.sparse.values),
        }
        if SENTENCES in self._spaces:
            vectors[SENTENCES] = point.sentence_space()
        if point.multilingual is not None and MULTILINGUAL in self._spaces:
            vectors[MULTILINGUAL] = list(point.multilingual)
        return vectors

    def _in_chunks(self, what: str, items: Sequence[_I], write: Callable[[list[_I]], object]) -> None:
        """One write per _UPSERT_CHUNK items, each waited for."""
        try:
            for start in range(0, len(items), _UPSERT_CHUNK):
                chunk = list(items[start : start + _UPSERT_CHUNK])
                self._call(what, lambda chunk=chunk: write(chunk), WriteFailed)  # type: ignore[misc]
        finally:
            self._counts.clear()

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self._in_chunks("delete", list(ids), lambda chunk: self._client.delete(
                self._collection, qm.PointIdsList(points=chunk), wait=True))  # fmt: skip

    def _set_deleted(self, ids: Sequence[str], flag: int) -> None:
        if ids:
            points: list[Any] = list(ids)
            self._in_chunks("update", points, lambda chunk: self._client.set_payload(
                self._collection, {"deleted": flag}, points=chunk, wait=True))  # fmt: skip

    def mark_deleted(self, ids: Sequence[str]) -> None:
        self._set_deleted(ids, 1)

    def mark_live(self, ids: Sequence[str]) -> None:
        self._set_deleted(ids, 0)

    def set_keyword(self, keys: Mapping[str, SparseVector], key_version: int) -> None:
        found = self._call(
            "retrieve",
            lambda: self._client.retrieve(
                self._collection, list(keys), with_payload=False, with_vectors=False
            ),
        )
        present: list[Any] = [str(p.id) for p in found]
        if not present:
            return
        # Each point's vector and its terms in one request: the document frequencies follow.
        operations: list[Any] = []
        for i in present:
            sparse = qm.SparseVector(indices=keys[i].indices, values=keys[i].values)
            operations.append(qm.UpdateVectorsOperation(update_vectors=qm.UpdateVectors(
                points=[qm.PointVectors(id=i, vector={SPARSE: sparse})])))  # fmt: skip
            operations.append(_set_terms(i, keys[i].indices, key_version=key_version))
        self._in_chunks(
            "update", operations, lambda chunk: self._client.batch_update_points(self._collection, chunk, wait=True)
        )

    def _request(
        self, namespace: str, query: Any, using: str, limit: int,
        within: tuple[float, float] | None = None,
    ) -> qm.QueryRequest:  # fmt: skip
        return qm.QueryRequest(query=query, using=using, filter=_live_in(namespace, None, within), limit=limit)

    def _search(self, requests: list[qm.QueryRequest]) -> list[list[VectorHit]]:
        responses = self._call(
            "search", lambda: self._client.query_batch_points(self._collection, requests)
        )
        return [[VectorHit(str(p.id), float(p.score)) for p in r.points] for r in responses]

    def search_dense(
        self, namespace: str, vector: Sequence[float], limit: int, *, space: DenseSpace = "dense",
        within: tuple[float, float] | None = None,
    ) -> list[VectorHit]:  # fmt: skip
        if space == SENTENCES and space not in self._spaces:
            space = "dense"
        if space not in self._spaces:
            return []
        # A multivector space is queried with a multivector: here, of one vector.
        query: list[Any] = [list(vector)] if space == SENTENCES else list(vector)
        return self._search([self._request(namespace, query, space, limit, within)])[0]

    def search_dense_batch(
        self, namespace: str, vectors: Sequence[Sequence[float]], limit: int
    ) -> list[list[VectorHit]]:
        if not vectors:
            return []
        return self._search([self._request(namespace, list(v), DENSE, limit) for v in vectors])

    def search_sparse(
        self, namespace: str, vector: SparseVector, limit: int, *,
        within: tuple[float, float] | None = None,
    ) -> list[VectorHit]:  # fmt: skip
        if not vector.indices:
            return []
        weighted = self._with_idf(namespace, vector)
        if not weighted.indices:
            return []
        request = self._request(namespace, weighted, SPARSE, limit, within)
        return self._search([request])[0]

    def _with_idf(self, namespace: str, vector: SparseVector) -> qm.SparseVector:
        """The query's weights times each term's IDF over the namespace's live points, as Qdrant
        counts it: ln(1 + (N - n + 0.5) / (n + 0.5)), N the points, n those holding the term.
        Counted over the namespace alone: collection-wide statistics would let one namespace's
        scores tell which words the others hold. A term no point holds is left out."""
        live = _live_in(namespace)
        filters: dict[int | None, qm.Filter] = {None: live}
        for index in vector.indices:
            filters[index] = qm.Filter(
                must=[*(live.must or []), qm.FieldCondition(key=TERMS, match=qm.MatchValue(value=index))],
                must_not=live.must_not,
            )
        known, generation = self._counts.get(namespace, filters)
        missing = [key for key in filters if key not in known]
        counted = dict(zip(missing, self._counting.map(self._count, [filters[k] for k in missing]), strict=True))
        self._counts.put(namespace, counted, generation)
        counted |= known
        total, held = counted[None], [counted[index] for index in vector.indices]
        indices, values = [], []
        for index, value, n in zip(vector.indices, vector.values, held, strict=True):
            if n:
                indices.append(index)
                values.append(value * idf(total, n))
        return qm.SparseVector(indices=indices, values=values)

    def _count(self, flt: qm.Filter) -> int:
        found = self._call("count", lambda: self._client.count(self._collection, count_filter=flt, exact=True))
        return int(found.count)

    def recent(
        self, namespace: str, session_id: str | None, limit: int,
        within: tuple[float, float] | None = None,
    ) -> list[str]:  # fmt: skip
        records, _ = self._call(
            "scroll",
            lambda: self._client.scroll(
                self._collection, scroll_filter=_live_in(namespace, session_id, within),
                limit=limit,
                order_by=qm.OrderBy(key="occurred_at", direction=qm.Direction.DESC),
                with_payload=False, with_vectors=False,
            ),
        )  # fmt: skip
        return [str(record.id) for record in records]

    def _retrieve(self, ids: Sequence[str], *, space: str | None = None) -> list[qm.Record]:
        """The points of `ids`: their payloads, or (given a `space`) their vectors in it alone."""
        if not ids:
            return []
        return self._call(
            "retrieve",
            lambda: self._client.retrieve(
                self._collection, list(ids), with_payload=_PAYLOAD if space is None else False,
                with_vectors=[space] if space else False,
            ),
        )

    def payloads(self, ids: Sequence[str]) -> dict[str, VectorPayload]:
        return {
            str(p.id): VectorPayload.model_validate(p.payload) for p in self._retrieve(ids)
        }

    def dense(self, ids: Sequence[str]) -> dict[str, list[float]]:
        found: dict[str, list[float]] = {}
        for point in self._retrieve(ids, space=DENSE):
            if isinstance(point.vector, dict) and isinstance(values := point.vector.get(DENSE), list):
                found[str(point.id)] = [float(x) for x in values]  # type: ignore[arg-type]
        return found

    def sentence_vectors(self, ids: Sequence[str]) -> dict[str, list[list[float]]]:
        if SENTENCES not in self._spaces:
            return {point_id: [vector] for point_id, vector in self.dense(ids).items()}
        found: dict[str, list[list[float]]] = {}
        for point in self._retrieve(ids, space=SENTENCES):
            if isinstance(point.vector, dict) and isinstance(rows := point.vector.get(SENTENCES), list):
                found[str(point.id)] = [[float(x) for x in row] for row in rows]  # type: ignore[union-attr]
        return found

    def all_payloads(self) -> dict[str, VectorPayload]:
        found: dict[str, VectorPayload] = {}
        offset: Any = None
        while True:
            records, offset = self._call(
                "scroll",
                lambda offset=offset: self._client.scroll(  # type: ignore[misc]
                    self._collection, limit=1000, offset=offset, with_payload=_PAYLOAD, with_vectors=False
                ),
            )
            for record in records:
                found[str(record.id)] = VectorPayload.model_validate(record.payload)
            if offset is None:
                return found

    def optimize(self) -> None:
        """Nothing to do: the server's own optimizers index new points in the background."""

    def count(self, namespace: str | None, *, exact: bool = True) -> int:
        flt = None if namespace is None else _live_in(namespace) if exact else _all_in(namespace)
        result = self._call(
            "count", lambda: self._client.count(self._collection, count_filter=flt, exact=exact)
        )
        return int(result.count)

    def close(self) -> None:
        self._counting.shutdown(wait=True)
        self._client.close()


def idf(total: int, holding: int) -> float:
    """A term's IDF as Qdrant's modifier computes it, of `holding` points among `total`.

    >>> round(idf(10, 1), 3), round(idf(10, 10), 3)
    (1.992, 0.047)
    """
    return math.log(1.0 + (total - holding + 0.5) / (holding + 0.5))


class _Counts:
    """A namespace's point count (key None) and its terms' document frequencies, reused for
    `seconds` unless this store writes (another process's writes show within that time).
    A count begun before a write is not kept: `put` checks the generation `get` saw."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._lock = threading.Lock()
        self._generation = 0
        self._counts: dict[tuple[str, int | None], tuple[float, int]] = {}

    def get(self, namespace: str, keys: Iterable[int | None]) -> tuple[dict[int | None, int], int]:
        oldest = time.monotonic() - self._seconds
        with self._lock:
            found = {key: self._counts.get((namespace, key)) for key in keys} if self._seconds > 0 else {}
            generation = self._generation
        return {key: hit[1] for key, hit in found.items() if hit is not None and hit[0] >= oldest}, generation

    def put(self, namespace: str, counts: Mapping[int | None, int], generation: int) -> None:
        now = time.monotonic()
        with self._lock:
            if self._seconds <= 0 or generation != self._generation:
                return
            if len(self._counts) > _COUNTS_KEPT:
                self._counts.clear()
            self._counts.update({(namespace, key): (now, n) for key, n in counts.items()})

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self._counts.clear()


def _transient(exc: BaseException) -> bool:
    """Whether a request failed for want of a server (no answer, a 5xx one, a gRPC status of
    the same kind), which a retry may find back, rather than for what it asked."""
    if isinstance(exc, ResponseHandlingException):
        return True
    if isinstance(exc, grpc.RpcError) and isinstance(exc, grpc.Call):
        return exc.code() in _TRANSIENT_GRPC
    return isinstance(exc, UnexpectedResponse) and exc.status_code is not None and exc.status_code >= 500


def _indices(record: qm.Record) -> list[int]:
    vector = record.vector.get(SPARSE) if isinstance(record.vector, dict) else None
    return list(vector.indices) if isinstance(vector, qm.SparseVector) else []


def _set_terms(point_id: str, indices: Sequence[int], *, key_version: int | None = None) -> qm.SetPayloadOperation:
    """The operation that writes a point's terms (and its key's recipe, when given)."""
    payload: dict[str, Any] = {TERMS: list(indices)}
    if key_version is not None:
        payload["key_version"] = key_version
    return qm.SetPayloadOperation(set_payload=qm.SetPayload(payload=payload, points=[point_id]))


def _live_in(
    namespace: str, session_id: str | None = None, within: tuple[float, float] | None = None
) -> qm.Filter:
    must: list[qm.Condition] = [
        qm.FieldCondition(key="namespace", match=qm.MatchValue(value=namespace))
    ]
    if session_id is not None:
        must.append(qm.FieldCondition(key="session_id", match=qm.MatchValue(value=session_id)))
    if within is not None:
        must.append(qm.FieldCondition(key="occurred_at", range=qm.Range(gte=within[0], lt=within[1])))
    return qm.Filter(
        must=must,
        must_not=[qm.FieldCondition(key="deleted", match=qm.MatchValue(value=1))],
    )


def _all_in(namespace: str) -> qm.Filter:
    """The namespace's points, forgotten ones too: one condition, so that an estimate reads its
    own index entry alone (see the embedded store's `_all_in`)."""
    return qm.Filter(must=[qm.FieldCondition(key="namespace", match=qm.MatchValue(value=namespace))])
