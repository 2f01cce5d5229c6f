"""The vector store contract: every VectorStore method, the same tests on every backend."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qdrant_edge as qe
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from engine.settings import Settings
from engine.stores.factory import open_stores
from engine.stores.qdrant_edge_vectors import DENSE, SPARSE, QdrantEdgeVectorStore, _links_of
from engine.stores.qdrant_server_vectors import QdrantServerVectorStore
from engine.stores.vectors import SparseVector, VectorPayload, VectorPoint, VectorStore
from tests.backends import live as _live
from tests.contract.conftest import OpenVectors

T = 1_700_000_000.0
IDS = [str(uuid.UUID(int=i + 1)) for i in range(4)]


def _point(i: int, dense: list[float], terms: list[int], namespace: str = "ns") -> VectorPoint:
    payload = VectorPayload(namespace=namespace, session_id="s1", kind="message", layer="episodic",
                            importance=0.5, created_at=T + i, occurred_at=T + i, entities=["atlas"])  # fmt: skip
    sparse = SparseVector(indices=terms, values=[1.0] * len(terms))
    return VectorPoint(id=IDS[i], dense=dense, sparse=sparse, payload=payload)


def _fill(vectors: VectorStore) -> None:
    vectors.upsert(
        [
            _point(0, [1, 0, 0, 0], [10, 11]),
            _point(1, [0.9, 0.1, 0, 0], [11, 12]),
            _point(2, [0, 1, 0, 0], [12, 13]),
            _point(3, [1, 0, 0, 0], [10, 11], namespace="other"),
        ]
    )


def test_the_multilingual_space_holds_only_the_points_given_a_vector_there(vectors: VectorStore) -> None:
    chinese = [_point(i, [1, 0, 0, 0], [10]).model_copy(update={"multilingual": v})
               for i, v in ((0, [0, 1, 0]), (1, [0, 0.8, 0.6]))]  # fmt: skip
    other = _point(3, [1, 0, 0, 0], [10], namespace="other").model_copy(update={"multilingual": [0, 1, 0]})
    vectors.upsert([*chinese, _point(2, [1, 0, 0, 0], [10]), other])
    found = vectors.search_dense("ns", [0, 1, 0], 10, space="multilingual")
    assert [h.id for h in found] == [IDS[0], IDS[1]] and found[0].score > found[1].score
    assert {h.id for h in vectors.search_dense("ns", [1, 0, 0, 0], 10)} == {IDS[0], IDS[1], IDS[2]}
    vectors.mark_deleted([IDS[0]])
    assert [h.id for h in vectors.search_dense("ns", [0, 1, 0], 10, space="multilingual")] == [IDS[1]]
    # A point written again without one leaves the space (an edit to English text).
    vectors.upsert([_point(1, [1, 0, 0, 0], [10])])
    assert vectors.search_dense("ns", [0, 1, 0], 10, space="multilingual") == []


def test_a_store_without_the_multilingual_space_finds_nothing_there(tmp_path: Path) -> None:
    store = QdrantEdgeVectorStore(tmp_path / "lean", 4)
    try:
        store.upsert([_point(0, [1, 0, 0, 0], [10]).model_copy(update={"multilingual": [0, 1, 0]})])
        assert store.search_dense("ns", [0, 1, 0], 10, space="multilingual") == []
        assert [h.id for h in store.search_dense("ns", [1, 0, 0, 0], 10)] == [IDS[0]]
    finally:
        store.close()


def test_a_point_scores_the_nearest_of_its_vector_and_its_sentences(vectors: VectorStore) -> None:
    """The sentences space: MaxSim of one query vector over a point's own vector and its
    sentences' vectors; the dense space keeps the point's own alone."""
    said = _point(0, [1, 0, 0, 0], [10]).model_copy(update={"sentences": [[0, 1, 0, 0], [0, 0, 3, 4]]})
    other = _point(3, [0, 0, 1, 0], [10], namespace="other").model_copy(update={"sentences": [[0, 0, 1, 0]]})
    vectors.upsert([said, _point(1, [0, 0, 1, 0], [10]), other])

    def nearest(query: list[float], space: Any = "sentences", **within: Any) -> list[tuple[str, float]]:
        return [(h.id, round(h.score, 5)) for h in vectors.search_dense("ns", query, 10, space=space, **within)]

    assert nearest([1, 0, 0, 0]) == [(IDS[0], 1.0), (IDS[1], 0.0)]
    assert nearest([0, 0, 1, 0]) == [(IDS[1], 1.0), (IDS[0], 0.6)]
    assert nearest([0, 1, 0, 0])[0] == (IDS[0], 1.0)
    assert nearest([0, 1, 0, 0], "dense")[0][1] == 0.0  # its own vector alone
    assert [round(x, 5) for x in vectors.dense([IDS[0]])[IDS[0]]] == [1, 0, 0, 0]
    # Its own vector, then its sentences' (as unit vectors, as cosine stores them).
    stored = {i: [[round(x, 5) for x in row] for row in rows] for i, rows in vectors.sentence_vectors(IDS[:3]).items()}
    assert stored == {IDS[0]: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0.6, 0.8]], IDS[1]: [[0, 0, 1, 0]]}
    assert nearest([0, 1, 0, 0], within=(T + 1, T + 9)) == [(IDS[1], 0.0)]
    vectors.mark_deleted([IDS[0]])
    assert [i for i, _ in nearest([0, 1, 0, 0])] == [IDS[1]]
    vectors.mark_live([IDS[0]])
    vectors.upsert([_point(0, [1, 0, 0, 0], [10])])  # rewritten as one sentence
    assert dict(nearest([0, 1, 0, 0]))[IDS[0]] == 0.0


def test_a_shard_made_before_the_sentences_space_opens_and_works_without_it(tmp_path: Path) -> None:
    """Qdrant cannot add a vector to a collection: an older one keeps the spaces it has."""
    where = tmp_path / "old"
    qe.EdgeShard.create(str(where), _edge_config(4)).close()
    client = QdrantClient(location=":memory:")
    client.create_collection(
        "old", vectors_config={DENSE: qm.VectorParams(size=4, distance=qm.Distance.COSINE)},
        sparse_vectors_config={SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
    )  # fmt: skip
    for store in (QdrantEdgeVectorStore(where, 4), QdrantServerVectorStore(client, "old", 4)):
        try:
            sentences = {"sentences": [[0, 1, 0, 0], [0, 0, 1, 0]]}
            store.upsert([_point(0, [1, 0, 0, 0], [10]).model_copy(update=sentences)])
            # It searches the dense space instead: the point at its own vector.
            found = store.search_dense("ns", [0, 1, 0, 0], 10, space="sentences")
            assert [(h.id, round(h.score, 5)) for h in found] == [(IDS[0], 0.0)]
            assert [h.id for h in store.search_dense("ns", [1, 0, 0, 0], 10)] == [IDS[0]]
            assert {i: [[round(x, 5) for x in row] for row in rows] for i, rows in store.sentence_vectors(IDS[:2]).items()} == {
                IDS[0]: [[1, 0, 0, 0]]
            }
        finally:
            store.close()


def test_dense_and_sparse_search_stay_in_the_namespace(vectors: VectorStore) -> None:
    _fill(vectors)
    hits = vectors.search_dense("ns", [1, 0, 0, 0], 10)
    assert [h.id for h in hits] == [IDS[0], IDS[1], IDS[2]]
    assert hits[0].score > hits[1].score > hits[2].score
    assert [h.id for h in vectors.search_dense("other", [1, 0, 0, 0], 10)] == [IDS[3]]
    assert [h.id for h in vectors.search_dense("ns", [1, 0, 0, 0], 1)] == [IDS[0]]
    batch = vectors.search_dense_batch("ns", [[1, 0, 0, 0], [0, 1, 0, 0]], 1)
    assert [[h.id for h in hits] for hits in batch] == [[IDS[0]], [IDS[2]]]
    assert vectors.search_dense_batch("ns", [], 1) == []
    # BM25: term 13 is in one document of the namespace, term 11 in two.
    assert [h.id for h in vectors.search_sparse("ns", SparseVector(indices=[13], values=[1.0]), 10)] == [IDS[2]]
    both = vectors.search_sparse("ns", SparseVector(indices=[10, 11], values=[1.0, 1.0]), 10)
    assert both[0].id == IDS[0] and {h.id for h in both} == {IDS[0], IDS[1]}
    assert vectors.search_sparse("ns", SparseVector(indices=[], values=[]), 10) == []


def _seen_from(vectors: VectorStore, namespace: str) -> list[Any]:
    """What a namespace can learn from the store: keyword scores for each pair of terms (their
    IDF included) and its size, exact and estimated."""
    seen: list[Any] = [vectors.count(namespace), vectors.count(namespace, exact=False)]
    for terms in ([1], [2], [1, 3], [4, 5], [2, 3, 6]):
        hits = vectors.search_sparse(namespace, SparseVector(indices=terms, values=[1.0] * len(terms)), 10)
        seen.append(sorted((h.id, round(h.score, 5)) for h in hits))
    return seen


_TERMS = st.lists(st.integers(1, 6), min_size=1, max_size=4, unique=True).map(sorted)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mine=st.lists(_TERMS, min_size=1, max_size=5), theirs=st.lists(_TERMS, min_size=1, max_size=30),
       forgotten=st.integers(0, 30), removed=st.integers(0, 30))  # fmt: skip
def test_a_namespace_sees_the_same_whatever_another_holds(
    vectors: VectorStore, mine: list[list[int]], theirs: list[list[int]], forgotten: int, removed: int
) -> None:
    """Keyword scores and sizes are the namespace's own: another namespace's terms, forgetting
    and deleting move none of them (a collection-wide IDF, or an estimate scaled by the whole
    store's forgotten share, would)."""
    run = uuid.uuid4().hex[:8]
    own, other = f"own-{run}", f"other-{run}"

    def points(namespace: str, term_lists: list[list[int]]) -> list[VectorPoint]:
        return [
            VectorPoint(id=str(uuid.uuid4()), dense=[1, 0, 0, 0], payload=_point(0, [], [], namespace).payload,
                        sparse=SparseVector(indices=terms, values=[1.0] * len(terms)))
            for terms in term_lists
        ]  # fmt: skip

    vectors.upsert(points(own, mine))
    before = _seen_from(vectors, own)
    written = points(other, theirs)
    vectors.upsert(written)
    vectors.mark_deleted([p.id for p in written[:forgotten]])
    vectors.delete([p.id for p in written[len(written) - removed :]])
    assert _seen_from(vectors, own) == before


@pytest.fixture(params=["local", pytest.param("server", marks=pytest.mark.qdrant)])
def qdrant_client(request: pytest.FixtureRequest) -> Iterator[QdrantClient]:
    """A qdrant-client in local mode, or one on the server at QDRANT_URL."""
    if request.param == "local":
        client = QdrantClient(location=":memory:")
    else:
        client = QdrantClient(url=_live("QDRANT_URL", "Qdrant server"), check_compatibility=False)
    yield client
    client.close()


def test_a_server_store_reuses_its_counts_until_it_writes(qdrant_client: QdrantClient) -> None:
    """The IDF counts are reused while the store writes nothing: another process's writes
    reach the scores within `idf_seconds`, the store's own at once."""
    collection = f"counts-{uuid.uuid4().hex[:12]}"
    keeping = QdrantServerVectorStore(qdrant_client, collection, 4, idf_seconds=3600)
    counting = QdrantServerVectorStore(qdrant_client, collection, 4)
    try:
        keeping.upsert([_point(0, [1, 0, 0, 0], [10, 11]), _point(1, [0, 1, 0, 0], [11])])
        query = SparseVector(indices=[10, 11], values=[1.0, 1.0])

        def scores(store: QdrantServerVectorStore) -> dict[str, float]:
            return {h.id: round(h.score, 5) for h in store.search_sparse("ns", query, 10)}

        first = scores(keeping)
        assert scores(counting) == first
        counting.upsert([_point(2, [0, 0, 1, 0], [11]), _point(3, [0, 0, 0, 1], [12])])  # another writer
        moved = scores(counting)
        assert moved[IDS[0]] != first[IDS[0]]  # term 11 is commoner: point 0 scores otherwise
        assert {i: first[i] for i in IDS[:2]} == {i: scores(keeping)[i] for i in IDS[:2]}  # kept counts
        keeping.mark_live([IDS[3]])  # a write of its own (changing nothing): counted again
        assert scores(keeping) == moved
    finally:
        qdrant_client.delete_collection(collection)
        keeping.close()
        counting.close()


def test_deleted_points_are_hidden_then_restored_then_removed(vectors: VectorStore) -> None:
    _fill(vectors)
    assert vectors.count("ns") == 3 and vectors.count(None) == 4
    vectors.mark_deleted([IDS[0]])
    assert IDS[0] not in {h.id for h in vectors.search_dense("ns", [1, 0, 0, 0], 10)}
    assert vectors.count("ns") == 2
    assert vectors.payloads([IDS[0]])[IDS[0]].deleted == 1
    vectors.mark_live([IDS[0]])
    assert vectors.search_dense("ns", [1, 0, 0, 0], 1)[0].id == IDS[0]
    vectors.delete([IDS[0]])
    assert vectors.payloads([IDS[0]]) == {} and vectors.dense([IDS[0]]) == {}
    assert vectors.count("ns") == 2


def test_payloads_vectors_and_reopening(open_vectors: OpenVectors) -> None:
    vectors = open_vectors()
    _fill(vectors)
    vectors.upsert([_point(1, [0, 0, 1, 0], [14])])  # replaces the point
    assert vectors.search_dense("ns", [0, 0, 1, 0], 1)[0].id == IDS[1]
    payload = vectors.payloads([IDS[1], "00000000-0000-0000-0000-00000000ffff"])
    assert list(payload) == [IDS[1]] and payload[IDS[1]].entities == ["atlas"]
    dense = vectors.dense([IDS[2]])[IDS[2]]
    assert [round(x, 5) for x in dense] == [0, 1, 0, 0]
    assert set(vectors.all_payloads()) == set(IDS)
    vectors.close()
    reopened = open_vectors()
    assert set(reopened.all_payloads()) == set(IDS)
    assert reopened.search_dense("ns", [0, 1, 0, 0], 1)[0].id == IDS[2]


def test_set_keyword_replaces_only_the_bm25_vector(vectors: VectorStore) -> None:
    _fill(vectors)
    missing = "00000000-0000-0000-0000-00000000ffff"
    vectors.set_keyword(
        {IDS[2]: SparseVector(indices=[10, 99], values=[0.5, 1.0]),
         missing: SparseVector(indices=[99], values=[1.0])},
        key_version=7,
    )  # fmt: skip
    assert [h.id for h in vectors.search_sparse("ns", SparseVector(indices=[99], values=[1.0]), 10)] == [IDS[2]]
    assert vectors.search_sparse("ns", SparseVector(indices=[13], values=[1.0]), 10) == []
    assert vectors.search_dense("ns", [0, 1, 0, 0], 1)[0].id == IDS[2]  # dense untouched
    payloads = vectors.payloads([IDS[2], IDS[1], missing])
    assert payloads[IDS[2]].key_version == 7 and payloads[IDS[1]].key_version == 1
    assert missing not in payloads  # ids without a point are skipped, not created
    assert payloads[IDS[2]].entities == ["atlas"]  # the rest of the payload stays


def test_recent_orders_by_occurred_at_within_the_namespace(vectors: VectorStore) -> None:
    _fill(vectors)
    other_session = _point(1, [0, 0, 1, 0], [14]).model_copy(deep=True)
    other_session.payload.session_id = "s2"
    vectors.upsert([other_session])
    assert vectors.recent("ns", None, 10) == [IDS[2], IDS[1], IDS[0]]
    assert vectors.recent("ns", None, 2) == [IDS[2], IDS[1]]
    assert vectors.recent("ns", "s1", 10) == [IDS[2], IDS[0]]
    assert vectors.recent("other", None, 10) == [IDS[3]]
    # occurred_at is T + i: [T, T + 2) holds the first two, the end left out
    assert vectors.recent("ns", None, 10, within=(T, T + 2)) == [IDS[1], IDS[0]]
    assert vectors.recent("ns", "s1", 10, within=(T, T + 2)) == [IDS[0]]
    assert vectors.recent("other", None, 10, within=(T, T + 4)) == [IDS[3]]
    assert vectors.recent("ns", None, 10, within=(T + 5, T + 9)) == []
    vectors.mark_deleted([IDS[2]])
    assert vectors.recent("ns", None, 10) == [IDS[1], IDS[0]]
    assert vectors.recent("nobody", None, 10) == []


def test_searches_within_a_time_keep_to_it_and_score_as_without(vectors: VectorStore) -> None:
    _fill(vectors)
    everything = vectors.search_dense("ns", [1, 0, 0, 0], 10)
    # occurred_at is T + i: [T + 1, T + 3) holds the last two of the namespace, not "other"'s
    dense = vectors.search_dense("ns", [1, 0, 0, 0], 10, within=(T + 1, T + 3))
    assert [h.id for h in dense] == [IDS[1], IDS[2]]
    assert {h.id: h.score for h in everything if h.id in {IDS[1], IDS[2]}} == {h.id: h.score for h in dense}
    query = SparseVector(indices=[11], values=[1.0])
    assert [h.id for h in vectors.search_sparse("ns", query, 10, within=(T + 1, T + 3))] == [IDS[1]]
    assert vectors.search_sparse("ns", query, 10, within=(T + 2, T + 3)) == []
    vectors.mark_deleted([IDS[1]])
    assert [h.id for h in vectors.search_dense("ns", [1, 0, 0, 0], 10, within=(T + 1, T + 3))] == [IDS[2]]


def _edge_config(dimension: int, **tuning: Any) -> Any:
    return qe.EdgeConfig(
        vectors={DENSE: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        **tuning,
    )


# The payload indexes an older version made: bare types, each adding HNSW links.
_PLAIN_INDEXES = {
    "namespace": qe.PayloadSchemaType.Keyword,
    "deleted": qe.PayloadSchemaType.Integer,
    "session_id": qe.PayloadSchemaType.Keyword,
    "occurred_at": qe.PayloadSchemaType.Float,
}


def test_an_older_edge_shard_gets_the_newer_payload_indexes(tmp_path: Path) -> None:
    """A shard made before `recent` existed has no occurred_at index, and one made before
    the indexes were lean has indexes that add HNSW links: opening fixes both."""
    for made_with in ({"namespace": qe.PayloadSchemaType.Keyword}, _PLAIN_INDEXES):
        where = tmp_path / str(len(made_with))
        old = qe.EdgeShard.create(str(where), _edge_config(4))
        for field, schema in made_with.items():
            old.update(qe.UpdateOperation.create_field_index(field, schema))
        old.close()
        store = QdrantEdgeVectorStore(where, 4)
        _fill(store)
        assert store.recent("ns", None, 1) == [IDS[2]]
        store.mark_deleted([IDS[2]])
        assert [h.id for h in store.search_dense("ns", [0, 1, 0, 0], 10)] == [IDS[1], IDS[0]]
        store.close()
        reopened = qe.EdgeShard.load(str(where))
        indexes = reopened.info().payload_schema
        reopened.close()
        assert set(indexes) == set(_PLAIN_INDEXES)
        adds_links = {field for field, index in indexes.items() if _links_of(index.params)}
        assert adds_links == {"namespace"}, made_with


def test_only_the_namespace_index_adds_hnsw_links(tmp_path: Path) -> None:
    """Qdrant links the points of every large block of an indexed field's values into the
    dense graph; occurred_at's ranges doubled it. Thresholds shrunk so that 3,000 points of
    16 dimensions make such blocks; the lean graph still finds the nearest point of random
    queries."""
    dimension, rng = 16, random.Random(3)
    points = [
        VectorPoint(
            id=str(uuid.UUID(int=i + 1)),
            dense=[rng.gauss(0, 1) for _ in range(dimension)],
            sparse=SparseVector(indices=[i % 50], values=[1.0]),
            payload=VectorPayload(namespace="ns", session_id=f"s{i // 20}", kind="message", layer="episodic",
                                  importance=0.5, created_at=T + i, occurred_at=T + i * 600, entities=[]),
        )  # fmt: skip
        for i in range(3000)
    ]
    small_blocks = {
        "hnsw_config": qe.HnswIndexConfig(m=8, ef_construct=32, full_scan_threshold=10),
        "optimizers": qe.EdgeOptimizersConfig(indexing_threshold=10),
    }
    plain = qe.EdgeShard.create(str(tmp_path / "plain"), _edge_config(dimension, **small_blocks))
    for field, schema in _PLAIN_INDEXES.items():
        plain.update(qe.UpdateOperation.create_field_index(field, schema))
    plain.update(qe.UpdateOperation.upsert_points([
        qe.Point(p.id, {DENSE: p.dense, SPARSE: qe.SparseVector(p.sparse.indices, p.sparse.values)}, p.payload.model_dump())
        for p in points
    ]))  # fmt: skip
    plain.optimize()
    plain.close()
    qe.EdgeShard.create(str(tmp_path / "lean"), _edge_config(dimension, **small_blocks)).close()
    lean = QdrantEdgeVectorStore(tmp_path / "lean", dimension)
    lean.upsert(points)
    lean.optimize()

    assert 0 < _link_bytes(tmp_path / "lean") < 0.6 * _link_bytes(tmp_path / "plain")
    found = _nearest_found(lean, points, rng)
    lean.close()
    assert found >= 18


def _nearest_found(store: VectorStore, points: list[VectorPoint], rng: random.Random) -> int:
    """Of 20 random queries, how many the store answers with the exact nearest point."""
    found = 0
    for _ in range(20):
        query = [rng.gauss(0, 1) for _ in range(len(points[0].dense))]
        nearest = max(points, key=lambda p: sum(a * b for a, b in zip(p.dense, query, strict=True)) / math.hypot(*p.dense))
        found += store.search_dense("ns", query, 1)[0].id == nearest.id
    return found


def _link_bytes(directory: Path) -> int:
    """The size of the HNSW graphs' links under a shard's directory (0: no graph built)."""
    return sum(f.stat().st_size for f in directory.rglob("links_compressed.bin"))


def test_the_settings_index_threshold_decides_what_optimize_indexes(tmp_path: Path) -> None:
    """3,000 points of 16 dimensions are ~190 KB of vectors: scanned under a 1 MB threshold,
    put on an HNSW graph under 50 KB, which a shard left unindexed converges to once reopened
    with it. On the graph, the nearest point is still found."""
    dimension, rng = 16, random.Random(5)
    points = [
        VectorPoint(
            id=str(uuid.UUID(int=i + 1)), dense=[rng.gauss(0, 1) for _ in range(dimension)],
            sparse=SparseVector(indices=[], values=[]),
            payload=VectorPayload(namespace="ns", session_id=None, kind="message", layer="episodic",
                                  importance=0.5, created_at=T, occurred_at=T + i, entities=[]),
        )  # fmt: skip
        for i in range(3000)
    ]

    def optimized(where: Path, threshold_kb: int, fill: bool) -> VectorStore:
        settings = Settings(data_dir=where, vector_index_threshold_kb=threshold_kb)
        graph, vectors, facts, digests = open_stores(settings, model="m", dimension=dimension)
        facts.close()
        digests.close()
        graph.close()
        if fill:
            vectors.upsert(points)
        vectors.optimize()
        return vectors

    optimized(tmp_path / "scanned", 1000, fill=True).close()
    assert _link_bytes(tmp_path / "scanned") == 0
    optimized(tmp_path / "indexed", 50, fill=True).close()
    assert _link_bytes(tmp_path / "indexed") > 0
    converged = optimized(tmp_path / "scanned", 50, fill=False)
    assert _link_bytes(tmp_path / "scanned") > 0
    found = _nearest_found(converged, points, rng)
    converged.close()
    assert found >= 18


def test_optimize_keeps_every_point_and_every_answer(vectors: VectorStore) -> None:
    _fill(vectors)
    before = [h.id for h in vectors.search_dense("ns", [1, 0, 0, 0], 10)]
    vectors.optimize()
    assert [h.id for h in vectors.search_dense("ns", [1, 0, 0, 0], 10)] == before
    assert vectors.count("ns") == 3 and vectors.recent("ns", None, 1) == [IDS[2]]
    vectors.upsert([_point(1, [0, 0, 1, 0], [14])])  # writable afterwards
    assert vectors.search_dense("ns", [0, 0, 1, 0], 1)[0].id == IDS[1]


# Opens the embedded stores as the settings name them, and prints the size of Qdrant Edge's
# search pool: its threads are named edge-search-N. In a process of its own, so that no
# other test's shard (whose threads end a while after it closes) is counted.
# The pool's threads start asynchronously, and the closed shards' threads end a while later
# (longer on a loaded machine): the count is the first that holds over ten reads in a row
# (half a second), and a thread gone mid-read is skipped.
_POOL_SIZE = """
import os, sys, time
from pathlib import Path
from engine.settings import Settings
from engine.stores.factory import open_stores
settings = Settings(data_dir=Path(sys.argv[1]), vector_search_threads=int(sys.argv[2]))
graph, vectors, facts, digests = open_stores(settings, model="m", dimension=4)
facts.close()  # the facts' and digests' shards search on one thread each: count the episodes'
digests.close()
vectors.search_dense("n", [0.1, 0.2, 0.3, 0.4], 1)

def count():
    names = []
    for task in os.listdir("/proc/self/task"):
        try:
            names.append(open(f"/proc/self/task/{task}/comm").read())
        except FileNotFoundError:
            pass
    return sum(name.startswith("edge-search") for name in names)

reads = [count()]
while len(reads) < 400 and (len(reads) < 10 or len(set(reads[-10:])) > 1):
    time.sleep(0.05)
    reads.append(count())
print(reads[-1])
vectors.close()
graph.close()
"""


def test_the_edge_shard_searches_on_the_threads_the_settings_give(tmp_path: Path) -> None:
    """Qdrant Edge's own pool is four threads a core; the setting sizes it, on a new shard
    and on one reopened with another count (0: one a core)."""

    def pool(threads: int) -> int:
        run = subprocess.run(
            [sys.executable, "-c", _POOL_SIZE, str(tmp_path), str(threads)],
            capture_output=True, text=True, check=True, timeout=120,
        )  # fmt: skip
        return int(run.stdout.split()[-1])

    assert pool(2) == 2
    assert pool(3) == 3
    assert pool(0) == os.cpu_count()
