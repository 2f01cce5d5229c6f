"""The façade's lifecycle half: reflection, forgetting, audit, repair and backup.

`Memory` inherits these methods; they live here to keep each module one screenful of
concern (`forget` sits with `restore` and `purge`). Every method is a thin call into
`engine/reflect/`, `engine/lifecycle/forget.py`, `engine/lifecycle/doctor.py` or `engine/lifecycle/backup.py`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

from engine.embed import Embedder
from engine.errors import InvalidInput, NotFound, StoreUnavailable
from engine.ingest.writer import Writer
from engine.inputs import check_namespace, is_unicode_text
from engine.keyword_keys import refresh_around
from engine.lifecycle.audit import AuditEntry, AuditLog, acting_as
from engine.lifecycle.backup import BackupSummary, export_memory, import_memory
from engine.lifecycle.doctor import DoctorReport, check_and_repair
from engine.lifecycle.forget import (
    PurgeReport,
    archive_episodes,
    purge_episodes,
    select_for_archive,
    unarchive,
)
from engine.llm import Extractor
from engine.lookup import one_entity
from engine.models import Entity, Episode
from engine.reflect.run import reflect_namespace
from engine.settings import Settings
from engine.stores.archive import ArchiveStore
from engine.stores.base import GraphStore
from engine.stores.vectors import VectorStore
from engine.text import canonical_name
from engine.views import ReflectionSummary

__all__ = ["Lifecycle"]

# Episode ids are UUIDs (36 characters); anything much longer is not one of ours.
MAX_ID_CHARS = 128


class Lifecycle:
    """`Memory`'s base: reading one episode, the checks every method makes, the audit log,
    and the lifecycle methods. Complete in itself, over the stores and writer `Memory`
    opens (no stub for a subclass to fill)."""

    _graph: GraphStore
    _vectors: VectorStore
    _embedder: Embedder
    _writer: Writer
    _extractor: Extractor | None
    _archive: ArchiveStore
    _audit: AuditLog
    settings: Settings
    actor: str
    _closed: bool

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("this Memory is closed")

    def get(self, id: str, *, namespace: str = "default") -> Episode:
        """The episode with this id, in any state (deleted ones show `deleted_at`).

        An id of the shared namespace is found from every namespace.

        Raises:
            NotFound: no episode has that id in the namespace or the shared one.
        """
        return self._owner(id, namespace)[1]

    def _owner(self, id: str, namespace: str) -> tuple[str, Episode]:
        """The readable namespace that holds episode `id`, and the episode."""
        self._scope(namespace, id)
        for readable in dict.fromkeys([namespace, self.settings.shared_namespace]):
            found = self._graph.get_episodes(readable, [id])
            if found:
                return readable, found[0]
        raise NotFound("episode", id)

    def _scope(self, namespace: str, *ids: object) -> None:
        """Check the memory is open, the namespace valid and each episode id a plausible id
        (before anything reaches a store)."""
        self._check_open()
        try:
            check_namespace(namespace)
        except ValueError as exc:
            raise InvalidInput("namespace", str(exc)) from None
        for episode_id in ids:
            if not is_unicode_text(episode_id) or not 0 < len(episode_id) <= MAX_ID_CHARS:  # type: ignore[arg-type]
                raise InvalidInput("id", f"must be an episode id (text of 1..{MAX_ID_CHARS} characters)")

    def _log(self, action: str, namespace: str | None, ids: list[str], reason: str | None = None) -> None:
        actor = acting_as.get() or self.actor
        self._audit.append(action, actor=actor, namespace=namespace, ids=ids, reason=reason)

    def reflect(self, *, namespace: str = "default", force: bool = False) -> ReflectionSummary:
        """Derive semantic facts from the namespace's episodes since the last run.

        Bounded by `reflection_batch_size` episodes and `reflection_time_budget` seconds;
        call again to go on. `force` re-reads from the first episode: facts are reinforced by
        distinct episodes, so re-reading never inflates them.

        Returns:
            What the run read and wrote (`status: nothing_new` when there was nothing to read).
        """
        self._scope(namespace)
        with self._writer.lock:
            summary = reflect_namespace(
                self._graph,
                self._vectors,
                self.settings,
                namespace,
                now=time.time(),
                from_start=force,
                extractor=self._extractor,
            )
        if summary.status == "done":
            self._log("reflect", namespace, [summary.id],
                      f"{summary.facts_written} written, {summary.facts_reinforced} reinforced, "
                      f"{summary.facts_closed} closed")  # fmt: skip
        return summary

    def maintain(self, *, namespace: str = "default") -> list[str]:
        """Archive what is expired, stale or over capacity (see `engine/lifecycle/forget.py`).

        Returns:
            The ids of the episodes archived.
        """
        self._scope(namespace)
        now = time.time()
        with self._writer.lock:
            chosen = select_for_archive(
                self._graph.lifecycle_rows(namespace), now=now, settings=self.settings
            )
            ids = archive_episodes(
                self._graph, self._vectors, self._archive, namespace, chosen, now=now,
                settings=self.settings,
            )
        for reason in sorted({r for _, r in chosen}):
            self._log("archive", namespace, [i for i, r in chosen if r == reason], reason)
        return ids

    def forget(self, id: str, *, namespace: str = "default") -> Episode:
        """Soft-delete an episode: it is kept for audit (`deleted_at`) and never recalled.

        Returns:
            The episode as it is now.
        Raises:
            NotFound: no live episode has that id in the namespace.
        """
        self._scope(namespace, id)
        with self._writer.lock:
            if self._writer.working.remove(namespace, id):
                # Working memory is in process only: forgetting it leaves nothing behind.
                return Episode(id=id, namespace=namespace, content="", layer="working",
                               occurred_at=time.time(), created_at=time.time(),
                               deleted_at=time.time())  # fmt: skip
            if not self._graph.soft_delete(namespace, id, time.time()):
                raise NotFound("live episode", id)
            try:
                self._vectors.mark_deleted([id])
                # Its words leave its neighbours' keyword keys too.
                refresh_around(self._graph, self._vectors, namespace, [id], self.settings)
            except StoreUnavailable:
                pass  # the graph is the truth: recall ignores the id; doctor rekeys
        self._log("forget", namespace, [id])
        return self.get(id, namespace=namespace)

    def restore(self, id: str, *, namespace: str = "default") -> Episode:
        """Undo `forget` (soft delete), or bring an archived episode back.

        Raises:
            NotFound: no forgotten or archived episode has that id in the namespace.
        """
        self._scope(namespace, id)
        with self._writer.lock:
            if self._graph.restore(namespace, id):
                self._vectors.mark_live([id])
                refresh_around(self._graph, self._vectors, namespace, [id], self.settings)
                action = "restore"
            else:
                back = unarchive(self._graph, self._vectors, self._embedder, self._archive,
                                 namespace, id, settings=self.settings)  # fmt: skip
                if back is None:
                    raise NotFound("forgotten or archived episode", id)
                action = "unarchive"
        self._log(action, namespace, [id])
        found = self._graph.get_episodes(namespace, [id])
        return found[0]

    def purge(
        self, ids: list[str], *, namespace: str = "default", dry_run: bool = True
    ) -> PurgeReport:
        """Remove episodes for good (graph, vectors, archive), for privacy requests.

        A dry run (the default) only lists what would go; pass `dry_run=False` to purge.
        """
        if isinstance(ids, str) or not isinstance(ids, list):
            raise InvalidInput("ids", "must be a list of episode ids")
        self._scope(namespace, *ids)
        with self._writer.lock:
            report = purge_episodes(self._graph, self._vectors, self._archive, namespace, ids,
                                    dry_run=dry_run, settings=self.settings)  # fmt: skip
        if not dry_run:
            self._log("purge", namespace, report.episodes, "purge requested")
        return report

    def namespaces(self) -> list[str]:
        """Every namespace that holds an episode."""
        self._check_open()
        return self._graph.namespaces()

    def archived(self, *, namespace: str = "default") -> list[Episode]:
        """The namespace's archived episodes (cold storage), oldest archived first."""
        self._scope(namespace)
        return [r.episode for r in self._archive.records(namespace)]

    def audit(self, *, namespace: str | None = None, limit: int = 100) -> list[AuditEntry]:
        """The latest changes of state, newest first."""
        self._check_open()
        return self._audit.read(namespace=namespace, limit=limit)

    def optimize(self) -> None:
        """Build the vector search index over what was stored since the last build:
        `store_many` does it after `settings.index_after_episodes` episodes; call it after
        many single `store` calls (search is exhaustive meanwhile, only slower).

        Raises:
            WriteFailed: the index could not be built; the stored data is unaffected.
        """
        self._check_open()
        with self._writer.lock:
            self._vectors.optimize()

    def doctor(
        self, *, repair: bool = False, progress: Callable[[int, int], None] | None = None
    ) -> DoctorReport:
        """Check that the vector mirror agrees with the graph; `repair` rebuilds what differs,
        calling `progress(done, total)` as episodes are re-embedded."""
        self._check_open()
        with self._writer.lock:
            report = check_and_repair(self._graph, self._vectors, self._embedder, self.settings,
                                      repair=repair, progress=progress)  # fmt: skip
        if report.repaired:
            self._log("repair", None, report.missing_vectors + report.orphan_vectors
                      + report.wrong_payloads, "doctor --repair")  # fmt: skip
        return report

    def export(
        self, path: str | Path, *, with_embeddings: bool = False,
        namespaces: Iterable[str] | None = None,
    ) -> BackupSummary:  # fmt: skip
        """Write the memory as JSON Lines: every namespace, or only `namespaces` (their
        episodes, entities, facts, archive and vectors), so a tenant can be handed its own.

        Raises:
            InvalidInput: a name in `namespaces` is not a namespace name.
        """
        self._check_open()
        chosen = _namespaces(namespaces)
        with self._writer.lock:
            return export_memory(self._graph, self._vectors, self._archive, Path(path),
                                 model=self._embedder.name, with_embeddings=with_embeddings,
                                 namespaces=chosen)  # fmt: skip

    def import_(self, path: str | Path, *, namespaces: Iterable[str] | None = None) -> BackupSummary:
        """Load an export, or only its `namespaces`, into this memory; the memory (or those
        namespaces of it) must be empty.

        Raises:
            InvalidInput: the file is no export, or the memory or a namespace is not empty.
        """
        self._check_open()
        chosen = _namespaces(namespaces)
        with self._writer.lock:
            summary = import_memory(self._graph, self._vectors, self._embedder, self._archive,
                                    Path(path), settings=self.settings, namespaces=chosen)  # fmt: skip
        self._log("import", None, [], f"{summary.nodes} nodes from {path}")
        return summary

    def merge_entities(self, keep: str, absorb: str, *, namespace: str = "default") -> Entity:
        """Merge entity `absorb` into `keep` (names or aliases): its mentions, decisions and
        facts move to `keep`, its names become aliases. For humans: the engine never merges
        entities of different types by itself.

        Raises:
            NotFound: either name is unknown. InvalidInput: both name the same entity.
        """
        self._scope(namespace)
        kept, absorbed = one_entity(self._graph, namespace, keep), one_entity(self._graph, namespace, absorb)
        if kept.id == absorbed.id:
            raise InvalidInput("absorb", f"{absorb!r} and {keep!r} are the same entity")
        with self._writer.lock:
            merged = self._graph.merge_entities(namespace, kept.id, absorbed.id)
        self._log("merge_entities", namespace, [kept.id, absorbed.id], f"{absorb} into {keep}")
        return merged

    def add_alias(self, entity: str, alias: str, *, namespace: str = "default") -> Entity:
        """Teach memory another name for an entity ("PG" for PostgreSQL).

        Raises:
            NotFound: the entity is unknown. InvalidInput: the alias is empty or already
                names another entity.
        """
        self._scope(namespace)
        target = one_entity(self._graph, namespace, entity)
        canonical = canonical_name(alias) if is_unicode_text(alias) else ""
        if not canonical:
            raise InvalidInput("alias", "must be a non-empty name")
        taken = [e for e in self._graph.find_entities(namespace, [canonical]) if e.id != target.id]
        if taken:
            raise InvalidInput("alias", f"{alias!r} already names entity {taken[0].name!r}")
        with self._writer.lock:
            updated = self._graph.add_alias(namespace, target.id, canonical)
        self._log("add_alias", namespace, [target.id], canonical)
        return updated


def _namespaces(names: Iterable[str] | None) -> frozenset[str] | None:
    """Validated namespace names, or None for every namespace."""
    if names is None:
        return None
    if isinstance(names, str):
        raise InvalidInput("namespaces", "must be a list of namespace names, not one string")
    chosen = set()
    for name in names:
        try:
            chosen.add(check_namespace(name))
        except ValueError as exc:
            raise InvalidInput("namespaces", str(exc)) from None
    if not chosen:
        raise InvalidInput("namespaces", "must name at least one namespace")
    return frozenset(chosen)
