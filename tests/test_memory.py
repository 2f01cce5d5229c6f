"""The façade on real stores (Ladybug + Qdrant Edge) in a temporary directory."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest

from engine import InvalidInput, Memory, NotFound, Settings, WriteFailed
from engine.embed import MiniLMEmbedder
from engine.inputs import MAX_OFFSET
from engine.recall.channels import Seed, graph_channel, specificity
from engine.recall.query_models import query_models
from engine.stores.ladybug_graph import LadybugGraphStore
from engine.stores.qdrant_edge_vectors import QdrantEdgeVectorStore
from engine.stores.vectors import DenseSpace, SparseVector, VectorHit, VectorPayload, VectorPoint

T = TypeVar("T")

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def test_round_trip_english(memory: Memory) -> None:
    result = memory.store(
        "We decided to go with PostgreSQL for Project Atlas.",
        session_id="s1",
        role="user",
        metadata={"ticket": "ATL-7", "tags": ["db"]},
    )
    memory.store("The cafeteria serves pasta on Fridays.", session_id="s1")
    assert result.status == "stored"
    assert "PostgreSQL" in result.entities
    assert result.decisions == ["We decided to go with PostgreSQL for Project Atlas."]

    cards = memory.recall("Which database did we choose for Atlas?", top_k=2)
    assert cards[0].id == result.id
    assert cards[0].metadata == {"ticket": "ATL-7", "tags": ["db"]}
    assert cards[0].role == "user" and cards[0].session_id == "s1"
    assert cards[0].trace is not None
    channels = {hit.channel for hit in cards[0].trace.channels}
    assert {"vector", "keyword"} <= channels
    assert cards[0].trace.final == pytest.approx(cards[0].score)
    assert 0 < cards[0].trace.decay <= 1


def test_round_trip_chinese(memory: Memory) -> None:
    budget = memory.store("我们决定把星火计划的预算改成50万。", session_id="周会")
    memory.store("今天中午吃了饺子。", session_id="周会")
    memory.store("The quarterly report is due in May.")
    assert budget.decisions
    cards = memory.recall("星火计划的预算是多少？", top_k=1)
    assert cards[0].id == budget.id and cards[0].trace is not None
    assert "keyword" in {hit.channel for hit in cards[0].trace.channels}
    assert memory.get(budget.id).numbers[0].value == 500_000


def test_two_hop_recall_through_an_entity(memory: Memory) -> None:
    memory.store("Alice leads Project Atlas.", occurred_at=NOW)
    answer = memory.store("Project Atlas ships to Acme Corp in March.", occurred_at=NOW)
    for noise in (
        "The weather in Lisbon was sunny all week.",
        "Bob is learning to play the cello.",
        "Our office coffee machine is broken again.",
    ):
        memory.store(noise, occurred_at=NOW)

    cards = memory.recall("What is new with Alice?", top_k=5, now=NOW)
    card = next(c for c in cards if c.id == answer.id)
    assert card.trace is not None
    graph_hit = next(h for h in card.trace.channels if h.channel == "graph")
    assert "keyword" not in {h.channel for h in card.trace.channels}  # no shared words
    assert card.trace.path is not None
    names = [n.name for n in card.trace.path.nodes if n.label == "Entity"]
    assert names == ["Alice", "Project Atlas"]
    steps = [n.name for n in card.trace.path.nodes if n.label == "Episode"]
    assert steps == ["Alice leads Project Atlas.", "Project Atlas ships to Acme Corp in March."]
    assert card.trace.path.relationships == ["MENTIONS", "MENTIONS", "MENTIONS"]
    assert card.related_ids and card.related_ids[0] != answer.id
    assert graph_hit.rank == 1
    noise_ids = {c.id for c in cards if "Lisbon" in c.content or "cello" in c.content}
    assert all(card.score > c.score for c in cards if c.id in noise_ids)
    # No path walks back to a node it already visited (an episode reached from itself).
    for each in cards:
        assert each.trace is not None
        visited = [n.id for n in each.trace.path.nodes] if each.trace.path else []
        assert len(visited) == len(set(visited)), each.trace.path


def test_expansion_takes_a_second_hop_from_what_the_first_reached(memory: Memory) -> None:
    start = memory.store("Alice leads Project Atlas.", occurred_at=NOW)
    middle = memory.store("Project Atlas hired Dana Whitfield.", occurred_at=NOW)
    far = memory.store("Dana Whitfield moved to Reykjavik.", occurred_at=NOW)
    graph, settings = memory._core.graph, memory.settings
    hits, reached = graph_channel(
        graph, "default", {start.id: Seed.at(1.0, start.id)}, NOW.timestamp(), settings, max_degree=10
    )
    scores = {hit.id: hit.score for hit in hits}
    assert {middle.id, far.id} <= scores.keys() and start.id not in scores  # no walking back
    path = reached[far.id].onto(far.id).path()
    assert [n.id for n in path.nodes if n.label == "Episode"] == [start.id, middle.id, far.id]
    assert [n.name for n in path.nodes if n.label == "Entity"] == ["Project Atlas", "Dana Whitfield"]
    assert path.relationships == ["MENTIONS"] * 4
    # Each hop: parent score x specificity (both entities are mentioned twice) x hop decay.
    hop = specificity(2) * settings.graph_hop_decay
    assert scores[middle.id] == pytest.approx(hop) and scores[far.id] == pytest.approx(hop * hop)


class _ReversedMentions:
    """The real graph, answering `episodes_mentioning` with its rows reversed: the order a
    store may give tied rows in (Neo4j gives them in storage order)."""

    def __init__(self, real: object) -> None:
        self._real = real

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)

    def episodes_mentioning(self, *args: object) -> list[object]:
        return list(reversed(self._real.episodes_mentioning(*args)))  # type: ignore[attr-defined]


def test_a_tied_path_does_not_depend_on_the_stores_row_order(memory: Memory) -> None:
    """An episode reached through two entities of one degree keeps the same path, whatever
    order the store lists the two mentions in."""
    start = memory.store("Alice Moreau and Bruno Keller founded Kestrel.", occurred_at=NOW)
    both = memory.store("Alice Moreau and Bruno Keller argued about the budget.", occurred_at=NOW)
    settings, now = memory.settings.model_copy(update={"graph_max_hops": 1}), NOW.timestamp()
    seeds = {start.id: Seed.at(1.0, start.id)}
    paths = []
    for graph in (memory._core.graph, _ReversedMentions(memory._core.graph)):
        _, reached = graph_channel(graph, "default", seeds, now, settings, max_degree=10)  # type: ignore[arg-type]
        paths.append([n.name for n in reached[both.id].onto(both.id).path().nodes if n.label == "Entity"])
    assert paths[0] == paths[1] == [sorted(["Alice Moreau", "Bruno Keller"])[0]]


def test_expansion_cuts_a_tie_newest_first(memory: Memory) -> None:
    """Six episodes reached through one entity tie; the hits keep the newest
    `channel_candidates` of them, and the second hop starts from the newest `graph_seeds`."""
    start = memory.store("Alice leads Project Atlas.", occurred_at=NOW - timedelta(days=30))
    people = ["Dana Whitfield", "Omar Haddad", "Priya Raman", "Kenji Watanabe", "Sofia Marquez", "Marco Bellini"]
    tied, far = [], []
    for day, person in enumerate(people, start=1):  # the last is the newest
        tied.append(memory.store(f"Project Atlas hired {person}.", occurred_at=NOW - timedelta(days=20 - day)).id)
        far.append(memory.store(f"{person} moved to Reykjavik.", occurred_at=NOW - timedelta(days=20 - day)).id)
    graph, now = memory._core.graph, NOW.timestamp()

    def expanded(**tuning: int) -> dict[str, float]:
        settings = memory.settings.model_copy(update=tuning)
        hits, _ = graph_channel(graph, "default", {start.id: Seed.at(1.0, start.id)}, now, settings, max_degree=10)
        return {hit.id: hit.score for hit in hits}

    assert expanded(channel_candidates=3, graph_max_hops=1).keys() == set(tied[-3:])
    hits = expanded(channel_candidates=50, graph_seeds=1)
    assert hits.keys() == {*tied, far[-1]}  # only the newest tied episode was expanded
    tie = specificity(len(people) + 1) * memory.settings.graph_hop_decay  # Project Atlas: 7 mentions
    assert all(hits[i] == pytest.approx(tie) for i in tied)


def test_decay_orders_equal_hits_by_age(settings: Settings) -> None:
    # Without the recency channel the two identical episodes fuse to the same score,
    # so decay alone must order them.
    no_recency = settings.model_copy(
        update={"weights": settings.weights.model_copy(update={"recency": 0.0}), "dedup": False}
    )
    with Memory.open(settings=no_recency) as memory:
        old = memory.store("The staging server password rotates monthly.", occurred_at=NOW - timedelta(days=120))
        new = memory.store("The staging server password rotates monthly.", occurred_at=NOW - timedelta(days=2))
        cards = memory.recall("How often does the staging password rotate?", top_k=2, now=NOW)
    assert [c.id for c in cards] == [new.id, old.id]
    assert cards[0].trace is not None and cards[1].trace is not None
    assert cards[0].trace.fused == pytest.approx(cards[1].trace.fused)
    assert cards[0].trace.decay > cards[1].trace.decay


def test_namespaces_are_isolated(memory: Memory) -> None:
    secret = memory.store("Agent A's launch code is PELICAN.", namespace="agent-a")
    memory.store("Agent B likes tea.", namespace="agent-b")
    cards = memory.recall("launch code PELICAN", namespace="agent-b", top_k=5)
    assert secret.id not in {c.id for c in cards}
    assert all("PELICAN" not in c.content for c in cards)
    with pytest.raises(NotFound):
        memory.get(secret.id, namespace="agent-b")
    assert memory.stats(namespace="agent-a").episodes == 1
    assert [e.id for e in memory.list(namespace="agent-a")] == [secret.id]


def test_forgotten_episodes_are_never_recalled(memory: Memory) -> None:
    gone = memory.store("The vault combination is 4-8-15-16.")
    kept = memory.store("The vault is in the basement.")
    forgotten = memory.forget(gone.id)
    assert forgotten.deleted_at is not None
    cards = memory.recall("vault combination 4-8-15-16", top_k=5)
    assert gone.id not in {c.id for c in cards} and kept.id in {c.id for c in cards}
    assert memory.get(gone.id).deleted_at is not None  # kept for audit
    assert gone.id not in {e.id for e in memory.list()}
    assert gone.id in {e.id for e in memory.list(include_deleted=True)}
    with pytest.raises(NotFound):
        memory.forget(gone.id)


def test_reopen_keeps_everything(settings: Settings) -> None:
    with Memory.open(settings=settings) as memory:
        first = memory.store("Dana owns the Harbor ingestion service.", session_id="s")
        second = memory.store("Harbor sends vessel positions every 30 seconds.", session_id="s")
        before = memory.stats()
    with Memory.open(settings=settings) as memory:
        assert memory.stats() == before
        assert memory.get(first.id).content == "Dana owns the Harbor ingestion service."
        cards = memory.recall("Who owns the Harbor ingestion?", top_k=1)
        assert cards[0].id == first.id
        third = memory.store("Dana moved to the Atlas team.", session_id="s")
        assert third.id not in (first.id, second.id)
        assert memory.stats().episodes == 3


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "x", "importance": 2}, "importance"),
        ({"content": "x", "importance": "critical"}, "importance"),
        ({"content": "x", "namespace": "no spaces"}, "namespace"),
        # Python's "$" matches before a final newline; the names must not end in one.
        ({"content": "x", "namespace": "team-a\n"}, "namespace"),
        ({"content": "x", "session_id": "chat-1\n"}, "session_id"),
        ({"content": "x", "kind": "email"}, "kind"),
        ({"content": "x", "occurred_at": "not a date"}, "occurred_at"),
    ],
)
def test_bad_input_is_rejected_and_nothing_stored(memory: Memory, kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        memory.store(**kwargs)  # type: ignore[arg-type]
    assert caught.value.field == field
    assert memory.stats().episodes == 0


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"limit": 0}, "limit"), ({"offset": -1}, "offset"), ({"offset": MAX_OFFSET + 1}, "offset")],
)
def test_list_names_the_paging_field_out_of_range(memory: Memory, kwargs: dict[str, int], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        memory.list(**kwargs)  # type: ignore[arg-type]
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"query": " "}, "query"),
        ({"query": "x", "top_k": 0}, "top_k"),
        # what a store refuses as a session id, a recall refuses too (the schema says so)
        ({"query": "x", "session_id": "chat\x01"}, "session_id"),
        ({"query": "x", "session_id": "chat-1\n"}, "session_id"),
        ({"query": "x", "session_id": "s" * 129}, "session_id"),
    ],
)
def test_recall_names_the_field_it_refuses(memory: Memory, kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        memory.recall(**kwargs)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_store_many_validates_every_item_first(memory: Memory) -> None:
    items = [{"content": "fine"}, {"content": "also fine"}, {"content": "x", "importance": "huge"}]
    with pytest.raises(InvalidInput) as caught:
        memory.store_many(items)
    assert caught.value.field == "items[2].importance"
    assert memory.stats().episodes == 0


def test_store_many_links_sessions_in_order(memory: Memory) -> None:
    seen: list[int] = []
    results = memory.store_many(
        [{"content": f"step {i} of the Atlas deploy", "session_id": "deploy"} for i in range(5)],
        progress=seen.append,
    )
    assert len(results) == 5 and seen[-1] == 5
    later = memory.store("step 5 of the Atlas deploy", session_id="deploy")
    listed = memory.list(session_id="deploy", limit=10)
    assert {e.id for e in listed} == {r.id for r in results} | {later.id}


class FailingVectors:
    """The real Qdrant Edge store, failing halfway through an upsert (fault injection)."""

    def __init__(self, real: QdrantEdgeVectorStore) -> None:
        self.real = real
        self.fail = False

    def upsert(self, points: Sequence[VectorPoint]) -> None:
        if self.fail:
            self.real.upsert(points[: len(points) // 2 or 1])
            raise WriteFailed("disk full (simulated)")
        self.real.upsert(points)

    def delete(self, ids: Sequence[str]) -> None:
        self.real.delete(ids)

    def mark_deleted(self, ids: Sequence[str]) -> None:
        self.real.mark_deleted(ids)

    def mark_live(self, ids: Sequence[str]) -> None:
        self.real.mark_live(ids)

    def set_keyword(self, keys: Mapping[str, SparseVector], key_version: int) -> None:
        self.real.set_keyword(keys, key_version)

    def search_dense(
        self, namespace: str, vector: Sequence[float], limit: int, *, space: DenseSpace = "dense",
        within: tuple[float, float] | None = None,
    ) -> list[VectorHit]:  # fmt: skip
        return self.real.search_dense(namespace, vector, limit, space=space, within=within)

    def search_dense_batch(
        self, namespace: str, vectors: Sequence[Sequence[float]], limit: int
    ) -> list[list[VectorHit]]:
        return self.real.search_dense_batch(namespace, vectors, limit)

    def search_sparse(
        self, namespace: str, vector: SparseVector, limit: int, *,
        within: tuple[float, float] | None = None,
    ) -> list[VectorHit]:  # fmt: skip
        return self.real.search_sparse(namespace, vector, limit, within=within)

    def dense(self, ids: Sequence[str]) -> dict[str, list[float]]:
        return self.real.dense(ids)

    def sentence_vectors(self, ids: Sequence[str]) -> dict[str, list[list[float]]]:
        return self.real.sentence_vectors(ids)

    def all_payloads(self) -> dict[str, VectorPayload]:
        return self.real.all_payloads()

    def payloads(self, ids: Sequence[str]) -> dict[str, VectorPayload]:
        return self.real.payloads(ids)

    def recent(
        self, namespace: str, session_id: str | None, limit: int,
        within: tuple[float, float] | None = None,
    ) -> list[str]:  # fmt: skip
        return self.real.recent(namespace, session_id, limit, within)

    def optimize(self) -> None:
        self.real.optimize()

    def count(self, namespace: str | None, *, exact: bool = True) -> int:
        return self.real.count(namespace, exact=exact)

    def close(self) -> None:
        self.real.close()


def test_vector_failure_mid_store_leaves_nothing_half_written(settings: Settings) -> None:
    embedder = MiniLMEmbedder()
    vectors = FailingVectors(QdrantEdgeVectorStore(settings.vectors_dir / "v", embedder.dimension))
    graph = LadybugGraphStore(settings.graph_path)
    facts = QdrantEdgeVectorStore(settings.vectors_dir / "f", embedder.dimension)
    digests = QdrantEdgeVectorStore(settings.vectors_dir / "d", embedder.dimension)
    with Memory(graph=graph, vectors=vectors, facts=facts, digests=digests, embedder=embedder, settings=settings) as memory:
        kept = memory.store("Kestrel is the codename of the billing rewrite.", session_id="s")
        vectors.fail = True
        with pytest.raises(WriteFailed):
            memory.store_many(
                [{"content": f"Kestrel milestone {i} is done.", "session_id": "s"} for i in range(4)]
                + [{"content": "ok thanks", "session_id": "s"}]  # would go to working memory
            )
        vectors.fail = False
        assert memory.list(layer="working") == []  # a failed batch leaves it as it was
        assert memory.stats().episodes == 1
        assert vectors.count("default") == 1
        assert [e.id for e in memory.list(include_deleted=True)] == [kept.id]
        cards = memory.recall("Kestrel milestone done", top_k=5)
        assert [c.id for c in cards] == [kept.id]
        # The session chain continues from the last episode that was really stored.
        after = memory.store("Kestrel milestone 1 is done.", session_id="s")
        assert {e.id for e in memory.list(session_id="s")} == {kept.id, after.id}


def test_concurrent_stores_from_threads(memory: Memory) -> None:
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(5):
                memory.store(f"worker {n} note {i} about Atlas", session_id=f"w{n}")
                memory.recall(f"worker {n} note", top_k=2)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert memory.stats().episodes == 20


def test_closed_memory_refuses_work(settings: Settings) -> None:
    memory = Memory.open(settings=settings)
    memory.close()
    memory.close()
    with pytest.raises(Exception, match="closed"):
        memory.recall("anything")


def test_a_large_store_many_builds_the_vector_index(settings: Settings) -> None:
    embedder = MiniLMEmbedder()
    vectors = FailingVectors(QdrantEdgeVectorStore(settings.vectors_dir / "v", embedder.dimension))
    built: list[int] = []
    real_optimize = vectors.optimize
    def counted_optimize() -> None:
        built.append(vectors.count(None))
        real_optimize()

    vectors.optimize = counted_optimize  # type: ignore[method-assign]
    small = settings.model_copy(update={"index_after_episodes": 3})
    facts = QdrantEdgeVectorStore(settings.vectors_dir / "f", embedder.dimension)
    digests = QdrantEdgeVectorStore(settings.vectors_dir / "d", embedder.dimension)
    with Memory(graph=LadybugGraphStore(settings.graph_path), vectors=vectors, facts=facts, digests=digests,
                embedder=embedder, settings=small) as memory:  # fmt: skip
        memory.store_many([{"content": f"Atlas milestone {i} shipped on day {i}."} for i in range(2)])
        assert built == []  # two stored: below the threshold
        memory.store_many([{"content": f"Kestrel milestone {i} shipped on day {i}."} for i in range(3)])
        assert built == [5]  # built once over everything stored
        memory.store_many([{"content": "Kestrel milestone 0 shipped on day 0."}] * 3)
        assert built == [5]  # duplicates are not stored: nothing new to index
        assert memory.recall("Kestrel milestone 2", top_k=1)[0].content.startswith("Kestrel milestone 2")


class _CountingPool(ThreadPoolExecutor):
    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.submitted = 0

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        self.submitted += 1
        return super().submit(fn, *args, **kwargs)


@pytest.mark.parametrize(("query_threads", "at_once"), [(1, True), (0, False), (2, False)])
def test_a_query_embeds_beside_the_reads_only_when_that_leaves_a_core_free(
    query_threads: int, at_once: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On every core, the embedding waits for the reads that need only the query's words:
    beside them, three threads shared two cores and slowed each other. It is then computed
    on the caller's thread, not handed to the pool and back."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    settings = Settings(embedder_query_threads=query_threads)
    embedder = MiniLMEmbedder("float32", threads=1, query_threads=query_threads)
    query = "Where did Alice move the Atlas database?"
    with _CountingPool() as pool:
        models = query_models(query, 1.7e9, embedder, pool, settings)
        assert pool.submitted == int(at_once)
        vector = models.embedding
        assert models.embedding is vector and pool.submitted == int(at_once)  # computed once
    assert sum(a * b for a, b in zip(vector, embedder.embed([query])[0], strict=True)) > 0.99999
