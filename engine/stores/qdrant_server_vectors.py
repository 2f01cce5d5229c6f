"""The production vector store on a Qdrant server (single node or distributed), through
`qdrant-client`.

One collection per embedding model, named with the model and dimension, holding the same
vectors as the embedded store: "dense" (cosine), "bm25" (sparse, IDF applied by Qdrant at
query time over the searched namespace's live points, which needs Qdrant 1.19 or later) and,
where the collection has these spaces, "sentences" (each point's dense vector again with its
sentences' vectors: cosine, a multivector scored by its nearest) and "multilingual" for CJK
text (cosine). Payload indexes on the
fields every search filters on. The same class runs on `qdrant-client`'s local mode
(`QdrantClient(location=":memory:")` or `path=`), which emulates the server's API; the tests
use it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

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
_INDEXED: dict[str, qm.PayloadSchemaType] = {
    "namespace": qm.PayloadSchemaType.KEYWORD,
    "deleted": qm.PayloadSchemaType.INTEGER,
    "session_id": qm.PayloadSchemaType.KEYWORD,
    "occurred_at": qm.PayloadSchemaType.FLOAT,  # `recent` orders by it
    "kind": qm.PayloadSchemaType.KEYWORD,
    "created_at": qm.PayloadSchemaType.FLOAT,
}
# Points per upsert request: bounded so that one request stays well under the server's
# 32 MB default body limit (a 384-d point with its sparse vector is a few KB).
_UPSERT_CHUNK = 256
_ERRORS = (UnexpectedResponse, ResponseHandlingException, ValueError, RuntimeError, OSError)
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
    ) -> None:
        """`multilingual`: the dimension of the multilingual space (None: no such space)."""
        self._client = client
        self._collection = collection
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
            exists = Retry((ResponseHandlingException,), attempts)(
                lambda: client.collection_exists(collection), "Qdrant"
            )
            if not exists:
                client.create_collection(
                    collection,
                    vectors_config=dense,
                    sparse_vectors_config={SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
                )
            info = client.get_collection(collection)
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
        except _ERRORS as exc:
            raise StoreUnavailable(f"cannot open the Qdrant collection {collection}: {exc}") from exc

    def _call(self, what: str, action: Callable[[], _T], error: type[StoreUnavailable] = StoreUnavailable) -> _T:
        try:
            return action()
        except _ERRORS as exc:
            raise error(f"vector {what} failed: {exc}") from exc

    def upsert(self, points: Sequence[VectorPoint]) -> None:
        structs = [
            qm.PointStruct(id=point.id, vector=self._vectors_of(point), payload=point.payload.model_dump())
            for point in points
        ]
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
        for start in range(0, len(items), _UPSERT_CHUNK):
            chunk = list(items[start : start + _UPSERT_CHUNK])
            self._call(what, lambda chunk=chunk: write(chunk), WriteFailed)  # type: ignore[misc]

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            selector = qm.PointIdsList(points=list(ids))
            self._call("delete", lambda: self._client.delete(self._collection, selector, wait=True), WriteFailed)

    def _set_deleted(self, ids: Sequence[str], flag: int) -> None:
        if ids:
            self._call(
                "update",
                lambda: self._client.set_payload(
                    self._collection, {"deleted": flag}, points=list(ids), wait=True
                ),
                WriteFailed,
            )

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
        vectors = [
            qm.PointVectors(
                id=i,
                vector={SPARSE: qm.SparseVector(indices=keys[i].indices, values=keys[i].values)},
            )
            for i in present
        ]
        self._in_chunks(
            "update", vectors, lambda chunk: self._client.update_vectors(self._collection, chunk, wait=True)
        )
        self._call(
            "update",
            lambda: self._client.set_payload(
                self._collection, {"key_version": key_version}, points=present, wait=True
            ),
            WriteFailed,
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
        sparse = qm.SparseVector(indices=vector.indices, values=vector.values)
        request = self._request(namespace, sparse, SPARSE, limit, within)
        # IDF over the namespace's live points only (Qdrant 1.19+): collection-wide statistics
        # would let one namespace's scores tell which words the others hold.
        request.params = qm.SearchParams(idf=qm.IdfCorpusParams(corpus=_live_in(namespace)))
        return self._search([request])[0]

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
                self._collection, list(ids), with_payload=space is None, with_vectors=[space] if space else False
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
                    self._collection, limit=1000, offset=offset, with_payload=True, with_vectors=False
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
        self._client.close()


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
