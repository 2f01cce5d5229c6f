"""`hindsight doctor`: do the graph and its vector mirror agree? Repair by rebuilding the mirror.

The graph is the truth. Every episode should have exactly one point with the right payload
(namespace, and `deleted` matching the episode's soft delete); no point should lack an episode.
`--repair` re-embeds missing points, deletes orphans and rewrites wrong payloads. Keyword keys
written under an older recipe (`key_version`) are recomputed, and so are the keys of the
session tails an orphan (a write cut short before its commit) may have left its words in.
The facts' points mirror the active facts the same way (`engine/fact_points.py`): an active
fact missing its point is embedded again, and a point of no active fact is marked deleted.
`engine.rebuild.rebuild_vectors` sets a vector store that no longer opens aside and
rebuilds it all.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel, Field

from engine.embed import Embedder
from engine.fact_points import live_fact_points, write_fact_points
from engine.ingest.pipeline import episode_vectors, vector_point
from engine.keyword_keys import KEY_VERSION, rekey
from engine.reflect.digests import write_digest_points
from engine.settings import Settings
from engine.stores.base import MaintenanceGraph
from engine.stores.vectors import VectorPayload, VectorStore
from engine.views import Fact

__all__ = ["DoctorReport", "check_and_repair"]

# Episodes re-embedded per batch during repair.
_REPAIR_BATCH = 64
# Episodes rekeyed per batch (a graph read of their session windows, one vector update).
_REKEY_BATCH = 500


class DoctorReport(BaseModel):
    episodes: int
    vector_points: int
    missing_vectors: list[str] = Field(default_factory=list)  # episodes without a point
    orphan_vectors: list[str] = Field(default_factory=list)  # points without an episode
    wrong_payloads: list[str] = Field(default_factory=list)  # namespace or deleted flag off
    stale_keys: list[str] = Field(default_factory=list)  # keyword keys of an older recipe
    facts: int = 0  # active facts
    missing_fact_points: list[str] = Field(default_factory=list)  # active facts without a point
    orphan_fact_points: list[str] = Field(default_factory=list)  # points of no active fact
    digests: int = 0  # session digests
    missing_digest_points: list[str] = Field(default_factory=list)  # digests without a point
    orphan_digest_points: list[str] = Field(default_factory=list)  # points of no digest
    repaired: bool = False
    set_aside: str | None = None  # where rebuild_vectors moved the old vector store

    @property
    def ok(self) -> bool:
        return not (
            self.missing_vectors or self.orphan_vectors or self.wrong_payloads or self.stale_keys
            or self.missing_fact_points or self.orphan_fact_points or self.missing_digest_points
            or self.orphan_digest_points
        )  # fmt: skip


def check_and_repair(
    graph: MaintenanceGraph,
    vectors: VectorStore,
    facts: VectorStore,
    digests: VectorStore,
    embedder: Embedder,
    settings: Settings,
    *,
    repair: bool,
    progress: Callable[[int, int], None] | None = None,
) -> DoctorReport:
    """Compare the stores; with `repair`, make the mirror agree with the graph, calling
    `progress(done, total)` after each batch of episodes re-embedded."""
    states = graph.episode_states()
    payloads = vectors.all_payloads()
    active = {f.id: (namespace, f) for namespace in graph.namespaces() for f in graph.active_facts(namespace)}
    fact_payloads = live_fact_points(facts)
    digested = {d.id: d for namespace in graph.namespaces() for d in graph.digests(namespace)}
    digest_points = digests.all_payloads()
    report = DoctorReport(
        episodes=len(states),
        vector_points=len(payloads),
        missing_vectors=sorted(i for i in states if i not in payloads),
        orphan_vectors=sorted(i for i in payloads if i not in states),
        wrong_payloads=sorted(
            i
            for i, (namespace, deleted) in states.items()
            if i in payloads
            and (payloads[i].namespace != namespace or bool(payloads[i].deleted) != deleted)
        ),
        stale_keys=sorted(
            i for i, (_, deleted) in states.items()
            if i in payloads and not deleted and payloads[i].key_version < KEY_VERSION
        ),  # fmt: skip
        facts=len(active),
        missing_fact_points=sorted(i for i in active if i not in fact_payloads),
        orphan_fact_points=sorted(i for i in fact_payloads if i not in active),
        digests=len(digested),
        missing_digest_points=sorted(i for i in digested if i not in digest_points),
        orphan_digest_points=sorted(i for i in digest_points if i not in digested),
    )
    if not repair or report.ok:
        return report
    facts.mark_deleted(report.orphan_fact_points)
    digests.delete(report.orphan_digest_points)
    write_digest_points(digests, embedder, [digested[i] for i in report.missing_digest_points], settings)
    missing_facts: dict[str, list[Fact]] = {}
    for fact_id in report.missing_fact_points:
        namespace, fact = active[fact_id]
        missing_facts.setdefault(namespace, []).append(fact)
    for namespace, of_namespace in missing_facts.items():
        write_fact_points(facts, embedder, of_namespace, namespace, settings)
    vectors.delete(report.orphan_vectors)
    rekeyed: dict[str, list[str]] = {}
    for episode_id in report.stale_keys:
        rekeyed.setdefault(states[episode_id][0], []).append(episode_id)
    for orphan in report.orphan_vectors:
        payload = payloads[orphan]
        if payload.session_id is not None:
            tail = graph.recent_episode_ids(
                payload.namespace, payload.session_id, time.time(), settings.keyword_context_turns
            )
            rekeyed.setdefault(payload.namespace, []).extend(tail)
    rebuild = report.missing_vectors + report.wrong_payloads
    by_namespace: dict[str, list[str]] = {}
    for episode_id in rebuild:
        by_namespace.setdefault(states[episode_id][0], []).append(episode_id)
    done = 0
    for namespace, ids in by_namespace.items():
        for start in range(0, len(ids), _REPAIR_BATCH):
            episodes = graph.get_episodes(namespace, ids[start : start + _REPAIR_BATCH])
            entities = graph.entities_of(namespace, [e.id for e in episodes])
            found = episode_vectors([e.content for e in episodes], embedder, settings)
            points = [
                vector_point(
                    e.id,
                    e.content,
                    vectors_of.dense,
                    VectorPayload(
                        namespace=namespace, session_id=e.session_id, kind=e.kind,
                        layer=e.layer, importance=e.importance, created_at=e.created_at,
                        occurred_at=e.occurred_at,
                        entities=sorted(x.canonical for x in entities.get(e.id, [])),
                        deleted=1 if e.deleted_at is not None else 0,
                    ),
                    settings,
                    multilingual=vectors_of.multilingual,
                    sentences=vectors_of.sentences,
                )  # fmt: skip
                for e, vectors_of in zip(episodes, found, strict=True)
            ]
            vectors.upsert(points)
            rekeyed.setdefault(namespace, []).extend(e.id for e in episodes)
            done += len(episodes)
            if progress is not None:
                progress(done, len(rebuild))
    for namespace, ids in rekeyed.items():
        for start in range(0, len(ids), _REKEY_BATCH):
            rekey(graph, vectors, namespace, ids[start : start + _REKEY_BATCH], settings)
    if len(rebuild) >= settings.index_after_episodes:
        vectors.optimize()  # as store_many: else every search stays exhaustive
    return report.model_copy(update={"repaired": True})
