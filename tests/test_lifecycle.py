"""Forgetting, audit, repair and backup on real stores: TTL, soft delete and restore, archive
and unarchive, capacity, purge, the audit log, doctor, export/import round trip."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
import qdrant_client

from engine import InvalidInput, Memory, NotFound, Settings, StoreUnavailable
from engine.embed import MiniLMEmbedder
from engine.ingest.pipeline import vector_point
from engine.rebuild import rebuild_vectors
from engine.stores.ladybug_graph import LadybugGraphStore
from engine.stores.qdrant_edge_vectors import QdrantEdgeVectorStore
from engine.stores.vectors import VectorPayload
from tests.backends import EMBEDDED_GRAPH_STORES, stores_settings

QUERIES = ["Which database does Atlas use?", "Who works at Acme?", "When is the Kestrel demo?"]


def _ids(memory: Memory, query: str, **kwargs: object) -> list[str]:
    return [c.id for c in memory.recall(query, top_k=10, **kwargs)]  # type: ignore[arg-type]


def test_ttl_expiry_leaves_recall_and_maintenance_archives(settings: Settings) -> None:
    short = settings.model_copy(update={"ttl_days": {"tool_call": 30.0}})
    with Memory.open(settings=short) as memory:
        gone = memory.store("The staging token for Kestrel is rotated.", importance="high",
                            expires_at="2026-01-01T00:00:00Z")  # fmt: skip
        kept = memory.store("The Kestrel demo is on Friday.", importance="high")
        tool = memory.store("ran pytest on Kestrel: 3 failures", kind="tool_call",
                            importance="high", occurred_at="2026-01-01T00:00:00Z")  # fmt: skip
        assert memory.get(tool.id).expires_at == pytest.approx(
            memory.get(tool.id).occurred_at + 30 * 86400
        )
        found = _ids(memory, "Kestrel")
        assert gone.id not in found and tool.id not in found and kept.id in found
        assert sorted(memory.maintain()) == sorted([gone.id, tool.id])
        assert {e.id for e in memory.archived()} == {gone.id, tool.id}
        assert [a.reason for a in memory.audit(limit=1)] == ["expired"]


def test_forget_then_restore(memory: Memory) -> None:
    stored = memory.store("Dana works at Acme on billing.", importance="high")
    memory.forget(stored.id)
    assert stored.id not in _ids(memory, "Who works at Acme?")
    back = memory.restore(stored.id)
    assert back.deleted_at is None
    assert stored.id in _ids(memory, "Who works at Acme?")
    with pytest.raises(NotFound):
        memory.restore(stored.id)  # not forgotten any more
    assert [e.action for e in memory.audit(limit=3)] == ["restore", "forget", "store"]


def test_stale_low_importance_is_archived_and_comes_back(settings: Settings) -> None:
    quick = settings.model_copy(update={"archive_after_days": 1e-6})
    with Memory.open(settings=quick) as memory:
        low = memory.store("Lunch at the Atlas office was pasta.", importance="low")
        high = memory.store("We decided to use Postgres for Atlas.", importance="high")
        time.sleep(0.2)
        assert memory.maintain() == [low.id]
        assert low.id not in _ids(memory, "Atlas office lunch")
        assert memory.stats().episodes == 1
        back = memory.restore(low.id)
        assert back.id == low.id and back.archived_at is None
        assert low.id in _ids(memory, "Atlas office lunch")
        assert "Atlas" in {e.name for e in memory.explain(low.id).entities}
        assert memory.archived() == []
        assert high.id in _ids(memory, "Atlas database")


def test_capacity_evicts_lowest_importance_first(settings: Settings) -> None:
    capped = settings.model_copy(update={"episodic_capacity": 2})
    with Memory.open(settings=capped) as memory:
        results = [
            memory.store(text, importance=level)
            for text, level in [("Atlas ships in May.", 0.9), ("Coffee machine is broken.", 0.35),
                                ("Dana leads Kestrel.", 0.8), ("It rained today.", 0.32)]
        ]  # fmt: skip
        archived = memory.maintain()
        assert sorted(archived) == sorted([results[1].id, results[3].id])
        assert memory.stats().episodes == 2


def test_purge_dry_run_then_purge_everywhere(memory: Memory) -> None:
    keep = memory.store("Atlas uses Postgres.", importance="high")
    secret = memory.store("We decided Dana's salary review is in May.", importance="high")
    plan = memory.purge([secret.id])
    assert plan.dry_run and plan.episodes == [secret.id] and len(plan.decisions) == 1
    assert memory.get(secret.id)  # nothing happened yet
    done = memory.purge([secret.id], dry_run=False)
    assert not done.dry_run
    with pytest.raises(NotFound):
        memory.get(secret.id)
    assert secret.id not in _ids(memory, "salary review")
    assert memory.doctor().ok and memory.stats().decisions == 0
    assert memory.get(keep.id)
    assert memory.audit(limit=1)[0].action == "purge"
    with pytest.raises(InvalidInput):
        memory.purge(secret.id)  # type: ignore[arg-type]


def test_doctor_finds_and_repairs_missing_and_orphan_vectors(on_each_store: Memory) -> None:
    memory = on_each_store
    first = memory.store("Atlas uses Postgres.", importance="high")
    second = memory.store("Dana works at Acme.", importance="high")
    memory.forget(second.id)
    assert memory.doctor().ok
    memory._core.vectors.delete([first.id])  # damage the mirror from outside the façade
    memory._core.vectors.mark_live([second.id])
    orphan_id = str(uuid.uuid4())
    orphan = vector_point(
        orphan_id, "nobody", [0.1] * 384,
        VectorPayload(namespace="default", session_id=None, kind="message", layer="episodic",
                      importance=0.5, created_at=0, occurred_at=0, entities=[]),
        memory.settings,
    )  # fmt: skip
    memory._core.vectors.upsert([orphan])
    report = memory.doctor()
    assert (report.missing_vectors, report.orphan_vectors, report.wrong_payloads) == (
        [first.id], [orphan_id], [second.id]
    )
    assert not report.ok and not report.repaired
    assert memory.doctor(repair=True).repaired
    assert memory.doctor().ok
    assert _ids(memory, "Which database does Atlas use?")[0] == first.id
    assert second.id not in _ids(memory, "Who works at Acme?")


def _history(memory: Memory) -> dict[str, str]:
    ids = {}
    for key, text in [
        ("pg", "Atlas uses Postgres for orders."), ("pg2", "Atlas uses Postgres with PostGIS."),
        ("acme", "Dana works at Acme since March."), ("demo", "The Kestrel demo is on Friday."),
        ("decision", "We decided to use Redis for the Kestrel cache."),
    ]:  # fmt: skip
        ids[key] = memory.store(text, importance="high", session_id="s1").id
    ids["gone"] = memory.store("Scratch note about Orion.", importance="high").id
    memory.forget(ids["gone"])
    memory.reflect()
    return ids


# An import needs an empty target, and the Neo4j cases share one database: the embedded graph.
@pytest.mark.parametrize("stores", EMBEDDED_GRAPH_STORES)
@pytest.mark.parametrize("with_embeddings", [True, False])
def test_export_import_round_trip(tmp_path: Path, stores: str, with_embeddings: bool) -> None:
    settings = stores_settings(stores, tmp_path / "data")
    dump = tmp_path / "memory.jsonl"
    with Memory.open(settings=settings) as source:
        _history(source)
        expected = {q: [(c.id, round(c.score, 4)) for c in source.recall(q, top_k=5, now=2e9)]
                    for q in QUERIES}  # fmt: skip
        stats = source.stats()
        facts = source.entity("Atlas").facts
        summary = source.export(dump, with_embeddings=with_embeddings)
    assert summary.nodes > 0 and summary.relationships > 0
    assert (summary.vectors > 0) is with_embeddings
    with Memory.open(settings=stores_settings(stores, tmp_path / "copy")) as target:
        target.import_(dump)
        assert target.stats() == stats
        assert [f.id for f in target.entity("Atlas").facts] == [f.id for f in facts]
        for query, cards in expected.items():
            got = [(c.id, round(c.score, 4)) for c in target.recall(query, top_k=5, now=2e9)]
            if with_embeddings:  # the same vectors: the same cards, the same order
                assert got == cards, query
            else:  # re-embedded: float noise may swap near-ties, nothing more
                assert {i for i, _ in got} == {i for i, _ in cards}, query
                want = dict(cards)
                for card_id, score in got:
                    assert score == pytest.approx(want[card_id], abs=2e-3)
        assert target.doctor().ok
        with pytest.raises(InvalidInput):
            target.import_(dump)  # not empty any more


def test_an_export_of_one_namespace_holds_nothing_of_another(tmp_path: Path, settings: Settings) -> None:
    """What an operator hands tenant A: A's episodes, entities, facts, archive and vectors,
    and not one byte of B's; importing it gives A's memory back beside another tenant's."""
    dump = tmp_path / "a.jsonl"
    with Memory.open(settings=settings) as source:
        for text in ("Atlas uses Postgres for orders.", "Dana works at Acme since March."):
            source.store(text, namespace="a", importance="high", session_id="s1")
        source.store("Kestrel's secret launch code is ZEBRA-7731.", namespace="b", importance="high")
        source.store("Mallory works at Initech.", namespace="b", importance="high")
        source.reflect(namespace="a")
        source.reflect(namespace="b")
        expected = [c.id for c in source.recall("Which database does Atlas use?", namespace="a")]
        stats = source.stats(namespace="a")
        summary = source.export(dump, namespaces=["a"], with_embeddings=True)
        with pytest.raises(InvalidInput, match="namespaces"):
            source.export(tmp_path / "x.jsonl", namespaces=["not a namespace!"])
        with pytest.raises(InvalidInput, match="namespaces"):
            source.export(tmp_path / "x.jsonl", namespaces="a")
    text = dump.read_text()
    assert "ZEBRA" not in text and "Mallory" not in text and "Initech" not in text
    assert '"namespace": "b"' not in text and summary.vectors == 2 and summary.relationships > 0
    target_settings = settings.model_copy(update={"data_dir": tmp_path / "copy"})
    with Memory.open(settings=target_settings) as target:
        target.store("Team C keeps its own notes.", namespace="c", importance="high")
        target.import_(dump, namespaces=["a"])  # only A need be empty
        assert target.stats(namespace="a") == stats
        assert [c.id for c in target.recall("Which database does Atlas use?", namespace="a")] == expected
        assert target.namespaces() == ["a", "c"]
        with pytest.raises(InvalidInput, match="namespaces"):
            target.import_(dump, namespaces=["a"])  # A holds episodes now


def test_recall_records_access_and_keeps_accessed_memories(settings: Settings) -> None:
    # Stale after a second: maintain() runs within it of the recall even on a loaded machine.
    stale_after = 1.0
    quick = settings.model_copy(update={"archive_after_days": stale_after / 86_400})
    with Memory.open(settings=quick) as memory:
        used = memory.store("The Kestrel deploy key lives in the vault.", importance="low")
        idle = memory.store("The office plant needs water.", importance="low")
        time.sleep(stale_after + 0.1)
        assert memory.recall("Kestrel deploy key", top_k=1)[0].id == used.id
        episode = memory.get(used.id)
        assert episode.access_count == 1 and episode.last_accessed_at is not None
        assert memory.maintain() == [idle.id]  # the one just used stays


def test_a_vector_store_that_no_longer_opens_is_set_aside_and_rebuilt(settings: Settings) -> None:
    with Memory.open(settings=settings) as memory:
        stored = [memory.store(text, session_id="s1", importance="high").id
                  for text in ("Atlas uses Postgres.", "Dana works at Acme.", "Kenji owns the budget.")]  # fmt: skip
        memory.forget(stored[2])
    config = next(settings.vectors_dir.rglob("edge_config.json"))
    config.write_text("{ not json")
    with pytest.raises(StoreUnavailable, match="--rebuild-vectors"):
        Memory.open(settings=settings)
    seen: list[tuple[int, int]] = []
    report = rebuild_vectors(settings=settings, progress=lambda done, total: seen.append((done, total)))
    assert report.repaired and report.missing_vectors == sorted(stored)
    assert seen[-1] == (3, 3)
    assert report.set_aside is not None  # kept, as it was, beside the new one
    assert (Path(report.set_aside) / config.relative_to(settings.vectors_dir)).read_text() == "{ not json"
    with Memory.open(settings=settings) as memory:
        assert memory.doctor().ok
        assert _ids(memory, "Which database does Atlas use?")[0] == stored[0]
        assert stored[2] not in _ids(memory, "Who owns the budget?")  # still forgotten


@pytest.mark.parametrize("stores", [store for store in EMBEDDED_GRAPH_STORES if store != "embedded"])
def test_doctor_repair_rebuilds_collections_the_qdrant_server_lost(stores: str, tmp_path: Path) -> None:
    """A Qdrant that lost its storage: the collections are made again, empty, when hindsight
    opens, and doctor --repair fills them from the graph."""
    settings = stores_settings(stores, tmp_path / "data")
    with Memory.open(settings=settings) as memory:
        _history(memory)
        expected = {q: [c.id for c in memory.recall(q, top_k=5, now=2e9)] for q in QUERIES}
        stats = memory.stats()
    client = qdrant_client.QdrantClient(url=settings.qdrant_url, check_compatibility=False) if settings.qdrant_url \
        else qdrant_client.QdrantClient(path=str(settings.data_dir / "qdrant-local"))
    try:
        made = [c.name for c in client.get_collections().collections
                if c.name.startswith(settings.qdrant_collection_prefix + "-")]  # fmt: skip
        assert len(made) == 3  # episodes, facts, digests
        for name in made:
            client.delete_collection(name)
    finally:
        client.close()
    with Memory.open(settings=settings) as memory:
        lost = memory.doctor()
        assert lost.vector_points == 0 and len(lost.missing_vectors) == lost.episodes > stats.episodes  # the forgotten too
        assert lost.missing_fact_points and lost.missing_digest_points
        assert memory.doctor(repair=True).repaired and memory.doctor().ok
        assert {q: [c.id for c in memory.recall(q, top_k=5, now=2e9)] for q in QUERIES} == expected
        assert memory.stats() == stats


def test_only_the_embedded_vector_store_can_be_set_aside(settings: Settings) -> None:
    server = settings.model_copy(update={"backend": "neo4j"})
    with pytest.raises(InvalidInput, match="Qdrant server"):
        rebuild_vectors(settings=server)


class _CountingOptimize(QdrantEdgeVectorStore):
    """The real store, counting index builds."""

    builds = 0

    def optimize(self) -> None:
        self.builds += 1
        super().optimize()


def test_a_repair_of_many_episodes_builds_the_index_as_store_many_does(settings: Settings) -> None:
    embedder = MiniLMEmbedder()
    for after, builds in ((3, 1), (4, 0)):  # index_after_episodes: reached, then not
        tuned = settings.model_copy(update={"data_dir": settings.data_dir / str(after), "index_after_episodes": after})
        vectors = _CountingOptimize(tuned.vectors_dir / "v", embedder.dimension)
        graph = LadybugGraphStore(tuned.graph_path)
        facts = QdrantEdgeVectorStore(tuned.vectors_dir / "f", embedder.dimension)
        digests = QdrantEdgeVectorStore(tuned.vectors_dir / "d", embedder.dimension)
        with Memory(graph=graph, vectors=vectors, facts=facts, digests=digests, embedder=embedder, settings=tuned) as memory:
            ids = [memory.store(f"Atlas milestone {i} shipped.", importance="high").id for i in range(3)]
            vectors.delete(ids)
            assert memory.doctor(repair=True).missing_vectors == sorted(ids)
            assert (vectors.builds, memory.doctor().ok) == (builds, True)
