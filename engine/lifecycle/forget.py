"""Forgetting on purpose: TTL expiry, the cold archive, capacity eviction and hard purge.

- Expired episodes (`expires_at` passed) already leave recall; maintenance archives them.
- Stale episodes (importance under `archive_max_importance`, not accessed nor seen again for
  `archive_after_days`) move to the archive: JSONL under `<data_dir>/archive/`, out of the
  graph and the vector store, restorable one by one.
- Over `episodic_capacity`, the lowest by importance x (1 - w + w x recency) are archived.
- `purge` removes episodes from the graph, the vectors and the archive, for privacy requests;
  its dry run lists what would go.
- A forgotten episode (soft-deleted, restorable) is not shown through the facts drawn from it
  (`mark_forgotten` in the graph, `follow_forgotten` in the fact points).
Selection is pure (`select_for_archive`); the rest moves records between the stores.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, Field

from engine.embed import Embedder
from engine.errors import StoreUnavailable
from engine.fact_points import write_fact_points
from engine.ingest.pipeline import episode_vectors, vector_point
from engine.keyword_keys import refresh_around, rekey, window_ids
from engine.lifecycle.fact_sources import with_forgotten, without_sources
from engine.models import Episode, Session, session_node_id
from engine.reflect.lessons import FIX_TYPE
from engine.settings import Settings
from engine.stores.archive import ArchiveRecord, ArchiveStore
from engine.stores.base import GraphBatch, LifecycleRow, MaintenanceGraph
from engine.stores.vectors import VectorPayload, VectorStore
from engine.views import LESSON_RULES, Fact

__all__ = [
    "PurgeReport",
    "archive_episodes",
    "follow_forgotten",
    "mark_forgotten",
    "purge_episodes",
    "select_for_archive",
    "unarchive",
]

SECONDS_PER_DAY = 86_400.0


class PurgeReport(BaseModel):
    """What a purge removed (or, in a dry run, would remove)."""

    dry_run: bool
    episodes: list[str]
    archived: list[str]  # of those, the ones found in the archive
    decisions: list[str] = Field(default_factory=list)
    facts_removed: list[str] = Field(default_factory=list)  # facts only they supported
    facts_revised: list[str] = Field(default_factory=list)  # facts others support too
    # Error signatures whose lessons a purged failure, fix or stated lesson supported: their
    # lessons (which quote a fix's own words) are removed and derived again from what is left.
    relearn: list[str] = Field(default_factory=list)
    # The sessions of the purged episodes and of every episode an affected fact or lesson
    # cites: their digests list those facts, so they are digested again.
    sessions: list[str] = Field(default_factory=list)


def select_for_archive(
    rows: Sequence[LifecycleRow], *, now: float, settings: Settings
) -> list[tuple[str, str]]:
    """(episode id, reason) for every episode maintenance should archive.

    >>> from engine.stores.base import LifecycleRow
    >>> rows = [LifecycleRow(id="old", importance=0.2, occurred_at=0, created_at=0),
    ...         LifecycleRow(id="key", importance=0.9, occurred_at=0, created_at=0),
    ...         LifecycleRow(id="ttl", importance=0.9, occurred_at=0, created_at=0, expires_at=5)]
    >>> select_for_archive(rows, now=40 * 86400, settings=Settings())
    [('ttl', 'expired'), ('old', 'stale')]
    """
    chosen: dict[str, str] = {}
    stale_before = now - settings.archive_after_days * SECONDS_PER_DAY
    for row in rows:
        if row.expires_at is not None and row.expires_at <= now:
            chosen[row.id] = "expired"
    for row in rows:
        touched = max(x for x in (row.last_accessed_at, row.last_seen, row.created_at) if x is not None)
        if row.id not in chosen and row.importance < settings.archive_max_importance and touched < stale_before:
            chosen[row.id] = "stale"
    capacity = settings.episodic_capacity
    remaining = [row for row in rows if row.id not in chosen]
    if capacity is not None and len(remaining) > capacity:
        w = settings.capacity_recency_weight

        def keep_score(row: LifecycleRow) -> float:
            age_days = max(0.0, now - row.occurred_at) / SECONDS_PER_DAY
            recency = math.pow(0.5, age_days / settings.decay_half_life_days)
            return row.importance * (1.0 - w + w * recency)

        for row in sorted(remaining, key=keep_score)[: len(remaining) - capacity]:
            chosen[row.id] = "capacity"
    return list(chosen.items())


def archive_episodes(
    graph: MaintenanceGraph,
    vectors: VectorStore,
    archive: ArchiveStore,
    namespace: str,
    chosen: Sequence[tuple[str, str]],
    *,
    now: float,
    settings: Settings,
) -> list[str]:
    """Move episodes to the archive: written there first, then removed from the hot stores."""
    reasons = dict(chosen)
    episodes = graph.get_episodes(namespace, list(reasons))
    ids = [e.id for e in episodes]
    entities = graph.entities_of(namespace, ids)
    decisions = graph.decisions_of(namespace, ids)
    about = graph.decision_links(namespace, [d.id for ds in decisions.values() for d in ds])
    chained = {row.episode_id for row in graph.session_windows(namespace, ids) if row.offset}
    records = [
        ArchiveRecord(
            episode=episode.model_copy(update={"archived_at": now}),
            entities=entities.get(episode.id, []),
            decisions=decisions.get(episode.id, []),
            about=[(d, e) for d, e in about if d in {x.id for x in decisions.get(episode.id, [])}],
            chained=episode.id in chained,
            archived_at=now,
            reason=reasons[episode.id],
        )
        for episode in episodes
    ]
    # Archive first: a crash after this leaves a record that is also still live (restorable,
    # harmless); the other order could lose the episode.
    archive.append(namespace, records)
    _delete_everywhere(graph, vectors, namespace, ids, settings)
    return ids


def _delete_everywhere(graph: MaintenanceGraph, vectors: VectorStore, namespace: str,
                       ids: Sequence[str], settings: Settings) -> None:  # fmt: skip
    """Delete episodes from both stores; their neighbours' keyword keys lose their words."""
    gone = set(ids)
    neighbours = [i for i in window_ids(graph, namespace, ids, settings) if i not in gone]
    graph.delete_episodes(namespace, list(ids))
    vectors.delete(ids)
    rekey(graph, vectors, namespace, neighbours, settings)


def unarchive(
    graph: MaintenanceGraph,
    vectors: VectorStore,
    embedder: Embedder,
    archive: ArchiveStore,
    namespace: str,
    episode_id: str,
    *,
    settings: Settings,
) -> Episode | None:
    """Bring one archived episode back into the graph and the vector store."""
    records = [r for r in archive.records(namespace) if r.episode.id == episode_id]
    if not records:
        return None
    record = records[0]
    episode = record.episode.model_copy(update={"archived_at": None})
    batch = GraphBatch(
        episodes=[episode],
        entities=[e.model_copy(update={"mention_count": 1}) for e in record.entities],
        decisions=record.decisions,
        mentions=[(episode.id, e.id, 1) for e in record.entities],
        decided=[(episode.id, d.id) for d in record.decisions],
        about=record.about,
    )
    if episode.session_id is not None:
        node = session_node_id(namespace, episode.session_id)
        batch.sessions = [Session(id=node, namespace=namespace, name=episode.session_id,
                                  started_at=episode.occurred_at, created_at=episode.created_at)]  # fmt: skip
        batch.in_session = [(episode.id, node)]
    payload = VectorPayload(
        namespace=namespace, session_id=episode.session_id, kind=episode.kind, layer=episode.layer,
        importance=episode.importance, created_at=episode.created_at,
        occurred_at=episode.occurred_at, entities=sorted(e.canonical for e in record.entities),
    )  # fmt: skip
    [found] = episode_vectors([episode.content], embedder, settings)
    point = vector_point(episode.id, episode.content, found.dense, payload, settings,
                         multilingual=found.multilingual, sentences=found.sentences)  # fmt: skip
    with graph.transaction():
        graph.write(batch)
        if record.chained and episode.session_id is not None:
            graph.rejoin_session(namespace, episode.id, episode.session_id)
        vectors.upsert([point])
        # Its key takes its neighbours' words again, and theirs its own.
        refresh_around(graph, vectors, namespace, [episode.id], settings)
    archive.take(namespace, [episode_id])
    return episode


def purge_episodes(
    graph: MaintenanceGraph,
    vectors: VectorStore,
    archive: ArchiveStore,
    namespace: str,
    ids: Sequence[str],
    *,
    dry_run: bool,
    settings: Settings,
    facts: VectorStore,
    embedder: Embedder,
) -> PurgeReport:
    """Remove episodes everywhere (graph, vectors, archive) with what reflection drew from them
    (`fact_sources.without_sources`), or list what would go."""
    live = [e.id for e in graph.get_episodes(namespace, list(ids))]
    cold = [r for r in archive.records(namespace) if r.episode.id in set(ids)]
    archived = [r.episode.id for r in cold]
    gone = set(live) | set(archived)
    decisions = [d.id for ds in graph.decisions_of(namespace, live).values() for d in ds]
    citing = graph.facts_citing(namespace, sorted(gone))
    relearn = sorted({f.subject_id for f in citing if f.rule in LESSON_RULES})
    lessons = [f for f in graph.facts_about(namespace, relearn, include_closed=True, whole=True)
               if f.rule in LESSON_RULES and f.subject_id in relearn]  # fmt: skip
    citing = [f for f in citing if f.rule not in LESSON_RULES]
    others = sorted({i for f in citing for i in f.source_episode_ids} - gone)
    remaining = {e.id: e for e in graph.get_episodes(namespace, others)}
    revision = without_sources(citing, gone, remaining, scale=settings.fact_support_scale)
    revision.removed += [f.id for f in lessons]
    cited = {i for f in [*citing, *lessons] for i in f.source_episode_ids} | set(live)
    sessions = sorted({e.session_id for e in graph.get_episodes(namespace, sorted(cited)) if e.session_id})
    report = PurgeReport(dry_run=dry_run, episodes=sorted(gone), archived=archived, decisions=decisions,
                         facts_removed=revision.removed, facts_revised=[f.id for f in revision.revised],
                         relearn=relearn, sessions=sessions)  # fmt: skip
    if dry_run:
        return report
    named = {e.id for found in graph.entities_of(namespace, live).values() for e in found}
    named |= {e.id for r in cold for e in r.entities}
    removed = set(revision.removed)
    named |= {i for f in citing if f.id in removed for i in (f.subject_id, f.object_id)}
    # The facts first: should what follows fail, no fact still quotes a purged episode.
    reopened = graph.revise_facts(namespace, revision.revised, revision.removed)
    closed = [f.id for f in revision.revised if f.valid_to is not None]
    facts.delete(revision.removed + closed)  # a closed fact's point is never searched
    current = graph.facts_by_id(namespace, [f.id for f in revision.revised] + reopened, include_closed=False)
    write_fact_points(facts, embedder, current, namespace, settings)
    # A FIX is named by one fix's words and mentioned by the fixes like it: it goes with its
    # lessons, which `relearn_lessons` writes again with the fixes left.
    graph.drop_entities(namespace, sorted({f.object_id for f in lessons}), FIX_TYPE)
    _delete_everywhere(graph, vectors, namespace, live, settings)
    archive.take(namespace, archived)
    graph.prune_entities(namespace, sorted(named))
    return report


def mark_forgotten(graph: MaintenanceGraph, namespace: str, ids: Sequence[str]) -> list[Fact]:
    """After episodes are forgotten or restored (in the same graph transaction): the facts
    drawn from them mark which of their sources are forgotten now
    (`fact_sources.with_forgotten`). Returns the facts it marked."""
    citing = graph.facts_citing(namespace, list(ids))
    cited = sorted({i for f in citing for i in f.source_episode_ids})
    changed = with_forgotten(citing, {e.id: e for e in graph.get_episodes(namespace, cited)})
    graph.mark_forgotten_sources(namespace, changed)
    return changed


def follow_forgotten(
    facts: VectorStore, embedder: Embedder, changed: Sequence[Fact], namespace: str, settings: Settings
) -> None:
    """The fact points of the facts `mark_forgotten` marked follow what is shown: a fact only
    forgotten episodes support has none, one whose statement only they held is read without
    it."""
    shown = {f.id: f.shown() for f in changed if f.valid_to is None}
    try:
        facts.mark_deleted([i for i, view in shown.items() if view is None])
        write_fact_points(facts, embedder, [view for view in shown.values() if view is not None], namespace, settings)
    except StoreUnavailable:
        pass  # the graph is the truth: recall reads each fact from it; doctor rebuilds the points
