"""One reflection run for a namespace: read new episodes, cluster, derive, reconcile, write.

Bounded by `reflection_batch_size` episodes and `reflection_time_budget` seconds; the
Reflection node it writes records where it stopped (`until`), so the next run goes on from
there. All writes of a run are one graph transaction.
"""

from __future__ import annotations

import time
import uuid

from engine.ingest.pipeline import entity_id
from engine.models import Entity, Episode, StoreRequest, StoreResult
from engine.reflect.cluster import cluster_ids
from engine.reflect.derive import EntityRef, EpisodeView, derive_facts, merge_paraphrases
from engine.reflect.reconcile import ActiveFact, FactPlan, FactWrite, reconcile
from engine.settings import Settings
from engine.stores.base import GraphBatch, GraphStore, VectorStore
from engine.text import canonical_name
from engine.views import Fact, ReflectionSummary

__all__ = ["failed_task_namespaces", "reflect_namespace"]


def failed_task_namespaces(requests: list[StoreRequest], results: list[StoreResult]) -> list[str]:
    """The namespaces where a failed task was just stored: an event worth learning from at
    once, so the store reflects on them."""
    return sorted({
        r.namespace
        for r, result in zip(requests, results, strict=True)
        if r.kind == "task" and r.metadata.get("outcome") == "failure" and result.status == "stored"
    })  # fmt: skip


def reflect_namespace(
    graph: GraphStore,
    vectors: VectorStore,
    settings: Settings,
    namespace: str,
    *,
    now: float,
    from_start: bool = False,
) -> ReflectionSummary:
    """Reflect over the namespace's episodes since the last run (or from the first episode);
    write its facts."""
    started = time.monotonic()
    cursor = 0.0 if from_start else graph.reflection_cursor(namespace)
    episodes = graph.episodes_after(namespace, cursor, now, settings.reflection_batch_size)
    run_id = str(uuid.uuid4())
    if not episodes:
        return ReflectionSummary(id=run_id, namespace=namespace, ran_at=now, episodes_seen=0,
                                 clusters=0, facts_written=0, facts_reinforced=0,
                                 facts_closed=0, until=cursor, status="nothing_new")  # fmt: skip
    ids = [e.id for e in episodes]
    dense = vectors.dense(ids)
    with_vectors = [i for i in ids if i in dense]
    clusters = cluster_ids(
        with_vectors,
        [dense[i] for i in with_vectors],
        threshold=settings.reflection_cluster_similarity,
    )
    views, made = _views(graph, namespace, episodes, now)
    candidates = merge_paraphrases(derive_facts(views), clusters)
    if time.monotonic() - started > settings.reflection_time_budget:
        candidates = []  # out of time: record the run, derive nothing from a partial read
    involved = sorted({c.subject.id for c in candidates} | {c.object.id for c in candidates})
    active = [
        ActiveFact(id=f.id, subject_id=f.subject_id, predicate=f.predicate, negated=f.negated,
                   object_id=f.object_id, confidence=f.confidence, support=f.support,
                   valid_from=f.valid_from, source_episode_ids=f.source_episode_ids)
        for f in graph.facts_about(namespace, involved, include_closed=False)
    ]  # fmt: skip
    plan = reconcile(
        candidates,
        active,
        now=now,
        min_support=settings.fact_min_support,
        scale=settings.fact_support_scale,
        half_life=settings.fact_half_life_days,
        floor=settings.fact_recency_floor,
    )
    summary = ReflectionSummary(
        id=run_id,
        namespace=namespace,
        ran_at=now,
        episodes_seen=len(episodes),
        clusters=len(clusters),
        facts_written=sum(not w.reinforces for w in plan.writes),
        facts_reinforced=sum(w.reinforces for w in plan.writes),
        facts_closed=len(plan.closes),
        until=max(e.created_at for e in episodes),
    )
    graph.write(_batch(plan, summary, made, now))
    return summary


def _views(
    graph: GraphStore, namespace: str, episodes: list[Episode], now: float
) -> tuple[list[EpisodeView], dict[str, Entity]]:
    """What derivation reads, and the speaker/tool entities it may need created."""
    ids = [e.id for e in episodes]
    entities = graph.entities_of(namespace, ids)
    decisions = graph.decisions_of(namespace, ids)
    made: dict[str, Entity] = {}

    def named(name: str | None, kind: str, at: float) -> EntityRef | None:
        canonical = canonical_name(name or "")
        if not canonical:
            return None
        key = entity_id(namespace, canonical)
        made.setdefault(key, Entity(id=key, namespace=namespace, name=str(name),
                                    canonical=canonical, type=kind, first_seen=at,
                                    last_seen=at, mention_count=0, created_at=now))  # fmt: skip
        return EntityRef(id=key, name=str(name))

    views = []
    for episode in episodes:
        tool_name = episode.metadata.get("tool")
        tool = named(tool_name if isinstance(tool_name, str) else episode.role, "TOOL",
                     episode.occurred_at) if episode.kind in ("tool_call", "task") else None  # fmt: skip
        views.append(
            EpisodeView(
                id=episode.id,
                content=episode.content,
                occurred_at=episode.occurred_at,
                kind=episode.kind,
                role=episode.role,
                metadata=episode.metadata,
                entities=[EntityRef(id=e.id, name=e.name) for e in entities.get(episode.id, [])],
                decisions=[d.text for d in decisions.get(episode.id, [])],
                speaker=named(episode.role, "PERSON", episode.occurred_at),
                tool=tool,
            )
        )
    return views, made


def _batch(
    plan: FactPlan, summary: ReflectionSummary, made: dict[str, Entity], now: float
) -> GraphBatch:
    def as_fact(write: FactWrite) -> Fact:
        data = write.model_dump(exclude={"reinforces"})
        return Fact(subject="", object="", reflection_id=summary.id, **data)

    used = {w.subject_id for w in plan.writes} | {w.object_id for w in plan.writes}
    return GraphBatch(
        # Speaker and tool entities only when a new fact needs them; MERGE keeps existing ones.
        entities=[e for key, e in made.items() if key in used],
        facts=[as_fact(w) for w in plan.writes if not w.reinforces],
        fact_updates=[as_fact(w) for w in plan.writes if w.reinforces],
        fact_closes=[(old, new, now) for old, new in plan.closes],
        reflections=[summary],
    )
