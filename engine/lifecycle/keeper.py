"""The façade's lifecycle half: reflection, forgetting, audit, repair and backup.

`Memory` forwards these methods to a `Keeper` over its `Core`. Every method is a thin call
into `engine/reflect/`, `engine/lifecycle/forget.py`, `doctor.py` or `backup.py`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from engine.arguments import (
    callback,
    caller_file_errors,
    file_path,
    flag,
    namespace_names,
    whole_number,
)
from engine.core import Core
from engine.errors import InvalidInput, NotFound, StoreUnavailable, WriteFailed
from engine.fact_points import rebuild_fact_points
from engine.inputs import is_namespace, is_unicode_text
from engine.keyword_keys import refresh_around
from engine.lifecycle.audit import AuditEntry
from engine.lifecycle.backup import BackupSummary, export_memory, import_memory
from engine.lifecycle.doctor import DoctorReport, check_and_repair
from engine.lifecycle.forget import (
    PurgeReport,
    archive_episodes,
    follow_forgotten,
    mark_forgotten,
    purge_episodes,
    select_for_archive,
    unarchive,
)
from engine.lookup import one_entity
from engine.models import Entity, Episode
from engine.reflect.digests import digest_id, refresh_digests, stale_sessions, write_digest_points
from engine.reflect.run import reflect_namespace, relearn_lessons
from engine.text import MAX_NAME_CHARS, canonical_name
from engine.views import ReflectionSummary

__all__ = ["Keeper"]

log = logging.getLogger(__name__)

MAX_AUDIT = 10_000  # entries one `audit` call returns at most


class Keeper:
    """The lifecycle half of `Memory`: reflection, forgetting, audit, repair and backup."""

    def __init__(self, core: Core) -> None:
        self._core = core

    def reflect(self, *, namespace: str = "default", force: bool = False) -> ReflectionSummary:
        """Derive semantic facts from the namespace's episodes since the last run, and digest
        every session whose digest is missing or older than its latest episode.

        Bounded by `reflection_batch_size` episodes and `reflection_time_budget` seconds;
        call again to go on. `force` re-reads from the first episode, and the runs after it go
        on from where it stopped: facts are reinforced by distinct episodes, so re-reading
        never inflates them.

        Returns:
            What the run read and wrote (`status: nothing_new` when there was nothing to read).
        """
        self._core.scope(namespace)
        force = flag("force", force)
        with self._core.writer.lock:
            summary = reflect_namespace(
                self._core.graph,
                self._core.settings,
                namespace,
                now=time.time(),
                facts=self._core.facts,
                embedder=self._core.batch_embedder,
                from_start=force,
                extractor=self._core.extractor,
            )
            self.digest_stale(namespace, idle_seconds=None)
        if summary.status == "done":
            self._core.log("reflect", namespace, [summary.id],
                           f"{summary.facts_written} written, {summary.facts_reinforced} reinforced, "
                           f"{summary.facts_closed} closed")  # fmt: skip
        return summary

    def maintain(self, *, namespace: str = "default") -> list[str]:
        """Archive what is expired, stale or over capacity (see `engine/lifecycle/forget.py`),
        and digest the sessions idle for `digest_idle_minutes` whose digest is out of date.

        Returns:
            The ids of the episodes archived.
        """
        self._core.scope(namespace)
        now = time.time()
        with self._core.writer.lock:
            chosen = select_for_archive(
                self._core.graph.lifecycle_rows(namespace), now=now, settings=self._core.settings
            )
            sessions = self._sessions_of(namespace, [i for i, _ in chosen])
            ids = archive_episodes(
                self._core.graph, self._core.vectors, self._core.archive, namespace, chosen, now=now,
                settings=self._core.settings,
            )
            self.redigest(namespace, sessions)
            idle = self._core.settings.digest_idle_minutes
            if idle > 0:
                self.digest_stale(namespace, idle_seconds=idle * 60)
        for reason in sorted({r for _, r in chosen}):
            self._core.log("archive", namespace, [i for i, r in chosen if r == reason], reason)
        return ids

    def forget(self, id: str, *, namespace: str = "default") -> Episode:
        """Soft-delete an episode: it is kept for audit (`deleted_at`) and never recalled.

        Returns:
            The episode as it is now.
        Raises:
            NotFound: no live episode has that id in the namespace.
        """
        self._core.scope(namespace, id)
        with self._core.writer.lock:
            if self._core.writer.working.remove(namespace, id):
                # Working memory is in process only: forgetting it leaves nothing behind.
                return Episode(id=id, namespace=namespace, content="", layer="working",
                               occurred_at=time.time(), created_at=time.time(),
                               deleted_at=time.time())  # fmt: skip
            # The facts drawn from it are marked in the same transaction: never one without the other.
            with self._core.graph.transaction():
                if not self._core.graph.soft_delete(namespace, id, time.time()):
                    raise NotFound("live episode", id)
                marked = mark_forgotten(self._core.graph, namespace, [id])
            follow_forgotten(self._core.facts, self._core.batch_embedder, marked, namespace, self._core.settings)
            try:
                self._core.vectors.mark_deleted([id])
                # Its words leave its neighbours' keyword keys too, and its session's digest.
                refresh_around(self._core.graph, self._core.vectors, namespace, [id], self._core.settings)
            except StoreUnavailable:
                pass  # the graph is the truth: recall ignores the id; doctor rekeys
            self.redigest(namespace, self._sessions_of(namespace, [id]))
        self._core.log("forget", namespace, [id])
        return self._core.owner(id, namespace)[1]

    def restore(self, id: str, *, namespace: str = "default") -> Episode:
        """Undo `forget` (soft delete), or bring an archived episode back.

        Raises:
            NotFound: no forgotten or archived episode has that id in the namespace.
        """
        self._core.scope(namespace, id)
        with self._core.writer.lock:
            with self._core.graph.transaction():
                restored = self._core.graph.restore(namespace, id)
                marked = mark_forgotten(self._core.graph, namespace, [id]) if restored else []
            if restored:
                follow_forgotten(self._core.facts, self._core.batch_embedder, marked, namespace, self._core.settings)
                self._core.vectors.mark_live([id])
                refresh_around(self._core.graph, self._core.vectors, namespace, [id], self._core.settings)
                action = "restore"
            else:
                back = unarchive(self._core.graph, self._core.vectors, self._core.batch_embedder, self._core.archive,
                                 namespace, id, settings=self._core.settings)  # fmt: skip
                if back is None:
                    raise NotFound("forgotten or archived episode", id)
                action = "unarchive"
            self.redigest(namespace, self._sessions_of(namespace, [id]))
        self._core.log(action, namespace, [id])
        found = self._core.graph.get_episodes(namespace, [id])
        return found[0]

    def purge(
        self, ids: list[str], *, namespace: str = "default", dry_run: bool = True
    ) -> PurgeReport:
        """Remove episodes for good (graph, vectors, archive), for privacy requests, with the
        facts only they supported; a fact others support too keeps only those.

        A dry run (the default) only lists what would go; pass `dry_run=False` to purge.
        """
        if isinstance(ids, str) or not isinstance(ids, list):
            raise InvalidInput("ids", "must be a list of episode ids")
        self._core.scope(namespace, *ids, listed="ids")
        dry_run = flag("dry_run", dry_run)
        with self._core.writer.lock:
            report = purge_episodes(self._core.graph, self._core.vectors, self._core.archive, namespace, ids,
                                    dry_run=dry_run, settings=self._core.settings, facts=self._core.facts,
                                    embedder=self._core.batch_embedder)  # fmt: skip
            if not dry_run:
                relearn_lessons(self._core.graph, namespace, report.relearn, now=time.time(),
                                settings=self._core.settings, facts=self._core.facts,
                                embedder=self._core.batch_embedder)  # fmt: skip
                self.redigest(namespace, report.sessions)
        if not dry_run:
            self._core.log("purge", namespace, report.episodes, "purge requested")
        return report

    def redigest(self, namespace: str, session_ids: Iterable[str]) -> None:
        """Digest these sessions again from their live episodes (under the writer's lock).
        Should that fail, their digests are removed instead (a stale one could keep what was
        just forgotten); the next `reflect` writes them again."""
        wanted = sorted(set(session_ids))
        if not wanted:
            return
        try:
            refresh_digests(self._core.graph, self._core.digests, self._core.batch_embedder, self._core.settings,
                            namespace, wanted, episode_vectors=self._core.vectors, now=time.time(),
                            extractor=self._core.extractor)  # fmt: skip
        except (StoreUnavailable, WriteFailed) as exc:
            log.warning("digests of %d sessions removed, not rebuilt: %s", len(wanted), exc)
            self._core.graph.replace_digests(namespace, wanted, [])
            self._core.digests.delete([digest_id(namespace, s) for s in wanted])

    def digest_stale(self, namespace: str, *, idle_seconds: float | None) -> None:
        """Digest the sessions whose digest is missing or out of date (`stale_sessions`), at
        most `reflection_batch_size` of them, the oldest first: a call is bounded, the next
        goes on."""
        graph, now = self._core.graph, time.time()
        stale = stale_sessions(graph.sessions(namespace, now), graph.digests(namespace), now=now,
                               idle_seconds=idle_seconds)  # fmt: skip
        self.redigest(namespace, stale[: self._core.settings.reflection_batch_size])

    def digest_idle(self) -> None:
        """In every namespace, digest the sessions idle for `digest_idle_minutes` whose digest
        is missing or out of date (`IdleDigests` calls it while the memory is open)."""
        idle = self._core.settings.digest_idle_minutes * 60
        for namespace in self.namespaces():
            with self._core.writer.lock:
                self.digest_stale(namespace, idle_seconds=idle)

    def _sessions_of(self, namespace: str, ids: Iterable[str]) -> list[str]:
        """The sessions these episodes belong to (a chunk's too)."""
        found = self._core.graph.get_episodes(namespace, list(ids))
        return sorted({e.session_id for e in found if e.session_id})

    def namespaces(self) -> list[str]:
        """Every namespace that holds an episode. A name no caller can give (the warm-up's
        rehearsal, for the moment it holds turns) is not listed."""
        self._core.check_open()
        return [n for n in self._core.graph.namespaces() if is_namespace(n)]

    def archived(self, *, namespace: str = "default") -> list[Episode]:
        """The namespace's archived episodes (cold storage), oldest archived first."""
        self._core.scope(namespace)
        return [r.episode for r in self._core.archive.records(namespace)]

    def audit(self, *, namespace: str | None = None, limit: int = 100) -> list[AuditEntry]:
        """The latest changes of state, newest first, optionally of one namespace."""
        self._core.check_open()
        if namespace is not None:
            self._core.scope(namespace)
        return self._core.audit.read(namespace=namespace, limit=whole_number("limit", limit, 1, MAX_AUDIT))

    def optimize(self) -> None:
        """Build the vector search index over what was stored since the last build:
        `store_many` does it after `settings.index_after_episodes` episodes; call it after
        many single `store` calls (search is exhaustive meanwhile, only slower).

        Raises:
            WriteFailed: the index could not be built; the stored data is unaffected.
        """
        self._core.check_open()
        with self._core.writer.lock:
            self._core.vectors.optimize()

    def doctor(
        self, *, repair: bool = False, progress: Callable[[int, int], None] | None = None
    ) -> DoctorReport:
        """Check that the vector mirror agrees with the graph; `repair` rebuilds what differs,
        calling `progress(done, total)` as episodes are re-embedded."""
        self._core.check_open()
        repair, progress = flag("repair", repair), callback("progress", progress)
        with self._core.writer.lock:
            report = check_and_repair(self._core.graph, self._core.vectors, self._core.facts, self._core.digests,
                                      self._core.batch_embedder, self._core.settings, repair=repair,
                                      progress=progress)  # fmt: skip
        if report.repaired:
            self._core.log("repair", None, report.missing_vectors + report.orphan_vectors
                           + report.wrong_payloads + report.missing_fact_points
                           + report.orphan_fact_points, "doctor --repair")  # fmt: skip
        return report

    def export(
        self, path: str | Path, *, with_embeddings: bool = False,
        namespaces: Iterable[str] | None = None,
    ) -> BackupSummary:  # fmt: skip
        """Write the memory as JSON Lines: every namespace, or only `namespaces` (their
        episodes, entities, facts, archive and vectors), so a tenant can be handed its own.

        Raises:
            InvalidInput: a name in `namespaces` is not a namespace name, or `path` cannot be
                written (no such directory, no permission).
        """
        self._core.check_open()
        target, chosen = file_path("path", path), namespace_names("namespaces", namespaces)
        with_embeddings = flag("with_embeddings", with_embeddings)
        with self._core.writer.lock, caller_file_errors("path"):
            return export_memory(self._core.graph, self._core.vectors, self._core.archive, target,
                                 model=self._core.embedder.name, with_embeddings=with_embeddings,
                                 namespaces=chosen)  # fmt: skip

    def import_(self, path: str | Path, *, namespaces: Iterable[str] | None = None) -> BackupSummary:
        """Load an export, or only its `namespaces`, into this memory; the memory (or those
        namespaces of it) must be empty.

        Raises:
            InvalidInput: the file cannot be read or is no export, or the memory or a
                namespace is not empty.
        """
        self._core.check_open()
        source, chosen = file_path("path", path), namespace_names("namespaces", namespaces)
        with self._core.writer.lock:
            with caller_file_errors("path"):
                summary = import_memory(self._core.graph, self._core.vectors, self._core.batch_embedder,
                                        self._core.archive, source, settings=self._core.settings,
                                        namespaces=chosen)  # fmt: skip
            # Fact and digest points are derived: an export carries the facts and digests, not
            # their points.
            for namespace in sorted(chosen or self._core.graph.namespaces()):
                self._rebuild_fact_points(namespace)
                write_digest_points(self._core.digests, self._core.batch_embedder, self._core.graph.digests(namespace),
                                    self._core.settings)  # fmt: skip
        self._core.log("import", None, [], f"{summary.nodes} nodes from {path}")
        return summary

    def _rebuild_fact_points(self, namespace: str) -> None:
        try:
            rebuild_fact_points(self._core.graph, self._core.facts, self._core.batch_embedder, namespace,
                                self._core.settings)  # fmt: skip
        except (StoreUnavailable, WriteFailed):
            pass  # the graph holds the facts; `doctor` finds the points missing and rebuilds them

    def merge_entities(self, keep: str, absorb: str, *, namespace: str = "default") -> Entity:
        """Merge entity `absorb` into `keep` (names or aliases): its mentions, decisions and
        facts move to `keep`, its names become aliases. For humans: the engine never merges
        entities of different types by itself.

        Raises:
            NotFound: either name is unknown. InvalidInput: both name the same entity.
        """
        self._core.scope(namespace)
        kept = one_entity(self._core.graph, namespace, keep, "keep")
        absorbed = one_entity(self._core.graph, namespace, absorb, "absorb")
        if kept.id == absorbed.id:
            raise InvalidInput("absorb", f"{absorb!r} and {keep!r} are the same entity")
        with self._core.writer.lock:
            merged = self._core.graph.merge_entities(namespace, kept.id, absorbed.id)
            self._rebuild_fact_points(namespace)  # their subject or object is renamed
        self._core.log("merge_entities", namespace, [kept.id, absorbed.id], f"{absorb} into {keep}")
        return merged

    def add_alias(self, entity: str, alias: str, *, namespace: str = "default") -> Entity:
        """Teach memory another name for an entity ("PG" for PostgreSQL).

        Raises:
            NotFound: the entity is unknown. InvalidInput: the alias is empty or already
                names another entity.
        """
        self._core.scope(namespace)
        target = one_entity(self._core.graph, namespace, entity)
        canonical = canonical_name(alias) if is_unicode_text(alias) else ""
        if not canonical:
            raise InvalidInput("alias", "must be a non-empty name")
        if len(canonical) > MAX_NAME_CHARS:  # an index key has a size limit (Neo4j: 8 kB)
            raise InvalidInput("alias", f"must be at most {MAX_NAME_CHARS} characters")
        taken = [e for e in self._core.graph.find_entities(namespace, [canonical]) if e.id != target.id]
        if taken:
            raise InvalidInput("alias", f"{alias!r} already names entity {taken[0].name!r}")
        with self._core.writer.lock:
            updated = self._core.graph.add_alias(namespace, target.id, canonical)
        self._core.log("add_alias", namespace, [target.id], canonical)
        return updated
