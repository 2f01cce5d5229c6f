"""The embedded graph store on Ladybug (an embedded Cypher database on disk).

The queries are `CypherGraphStore`'s, in the Ladybug dialect; this module holds the
connection, the DDL and the read-only analyst path. One connection, guarded by a re-entrant
lock: Ladybug allows one writer, and a transaction must not interleave with another
thread's reads on the same connection.

Graph expansion's reads (`entity_links`, `episodes_mentioning`, and `facts_about` while a
namespace has no active fact), the lookup of entities by name (`find_entities`, which recall
runs once a query and a store once a batch) and a store's duplicate check (`find_by_hash`)
are answered from a `MentionIndex` instead, which `write`, `soft_delete` and `restore` keep
current and any other write drops.

Recall's access marks wait in an `AccessLog` and are written many recalls at once: before
any statement that may read them, when enough wait (then checkpointed), and on close.

The episodes recall reads (`live_episodes`), and those a batch just wrote, stay in an
`EpisodeCache`: access marks written are applied to them, the other writes that change one
evict it, and any write the index does not follow drops them all.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import ladybug

from engine.errors import InvalidInput, StoreUnavailable, WriteFailed
from engine.models import Entity, Episode, GraphReads
from engine.stores.access_log import AccessLog, marked
from engine.stores.base import CypherRows, EntityLink, GraphBatch
from engine.stores.cypher_dialect import LADYBUG
from engine.stores.cypher_graph import CypherGraphStore
from engine.stores.cypher_parts import Statement, may_write
from engine.stores.episode_cache import EpisodeCache, touched
from engine.stores.graph_rows import entity_from, episode_from, episode_row, plain
from engine.stores.mention_index import MentionIndex, NamespaceMentions
from engine.views import Fact
from graph_schema import NODES, RELATIONSHIPS, SCHEMA_VERSION, ladybug_ddl, ladybug_migrations

__all__ = ["LadybugGraphStore"]


# Ladybug's errors that fault the query (its text, names, functions or arithmetic), not the store.
_QUERY_FAULTS = ("Parser exception", "Binder exception", "Catalog exception", "Overflow exception",
                 "Conversion exception")  # fmt: skip

class LadybugGraphStore(CypherGraphStore):
    """`GraphStore` on an embedded Ladybug database at `path` (created when missing),
    executing each statement on `threads` worker threads (0: one per core), holding the
    MENTIONS edges of up to `index_episodes` episodes in process (0: none), writing access
    marks `access_batch` episodes at a time (1: each at once) and holding up to
    `cache_episodes` of the episodes recall read (0: none)."""

    def __init__(
        self,
        path: Path,
        threads: int = 1,
        *,
        index_episodes: int = 500_000,
        access_batch: int = 1024,
        cache_episodes: int = 50_000,
    ) -> None:
        super().__init__(LADYBUG)
        # Only this process writes the database (Ladybug locks it), so an in-process copy of
        # the MENTIONS edges, or of episodes, stays true as long as every write here keeps it
        # current.
        self._mentions = MentionIndex(index_episodes) if index_episodes > 0 else None
        self._episodes = EpisodeCache(cache_episodes) if cache_episodes > 0 else None
        self._caller_keeps_index = False  # see `_index_kept_by_caller`
        # Writes that change nothing the index holds. (Those that change episodes evict them
        # from the episode cache themselves.)
        self._keeps_index = frozenset(
            {
                "BEGIN TRANSACTION",
                "COMMIT",
                "CHECKPOINT",
                self._q.mark_accessed.text,
                self._q.mark_accessed_rows.text,
                self._q.touch.text,
                # A session's digest: its node and its own edges, nothing an episode holds.
                self._q.delete_digests.text,
                self._q.create_digests.text,
                self._q.digest_of.text,
                self._q.draws_on.text,
            }
        )
        # Access marks not yet written, and the statements that run without writing them
        # first: recall's reads, which read no access field (`live_episodes` overlays them).
        self._access = AccessLog(access_batch) if access_batch > 1 else None
        q = self._q
        self._blind_to_access = self._recall_reads | {
            q.index_episodes.text, q.index_entities.text, q.index_mentions.text, "CHECKPOINT"
        }
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # A process killed inside a commit leaves a torn record at the WAL's end: replay up
            # to it (that commit was never acknowledged) instead of refusing the whole graph.
            self._db = ladybug.Database(str(path), max_num_threads=threads, throw_on_wal_replay_failure=False)
            self._conn = ladybug.Connection(self._db)
        except (RuntimeError, OSError) as exc:
            raise StoreUnavailable(f"cannot open the graph at {path}: {exc}") from exc
        self._lock = threading.RLock()
        self._in_transaction = False
        for statement in ladybug_ddl():
            self._execute(statement, {})
        for statement in ladybug_migrations(self._columns()):
            self._execute(statement, {})
        self._run(self._q.schema_version, {"version": SCHEMA_VERSION})

    def _columns(self) -> dict[str, set[str]]:
        tables = [n.label for n in NODES] + [r.name for r in RELATIONSHIPS]
        return {
            table: {str(row[1]) for row in self._execute(f"CALL table_info('{table}') RETURN *", {})}
            for table in tables
        }

    # -- plumbing -------------------------------------------------------------------------
    def _execute(
        self, query: str, params: Mapping[str, Any], *, write: bool = True
    ) -> list[list[Any]]:
        with self._lock:
            if query not in self._blind_to_access:
                self._write_access()
            if not self._caller_keeps_index and query not in self._keeps_index and may_write(query):
                self._drop_held()
            try:
                result = self._conn.execute(query, dict(params))
                assert not isinstance(result, list)
                return [list(row) for row in result.get_all()]
            except RuntimeError as exc:
                raise StoreUnavailable(f"graph query failed: {exc}") from exc

    def _run_all(self, plan: Sequence[tuple[Statement, Mapping[str, Any]]]) -> None:
        if plan:
            with self.transaction():
                for statement, params in plan:
                    self._run(statement, params)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._in_transaction:  # nested: the outer transaction decides
                yield
                return
            self._execute("BEGIN TRANSACTION", {})
            self._in_transaction = True
            try:
                yield
            except BaseException:
                self._in_transaction = False
                self._drop_held()  # they may hold what the transaction wrote
                self._rollback()
                raise
            self._in_transaction = False
            try:
                self._execute("COMMIT", {})
            except StoreUnavailable as exc:
                raise WriteFailed(f"graph commit failed: {exc}") from exc

    def _drop_held(self) -> None:
        """Forget the index and the cached episodes: a write neither follows happened."""
        if self._mentions is not None:
            self._mentions.drop()
        if self._episodes is not None:
            self._episodes.drop()

    def _rollback(self) -> None:
        try:
            self._conn.execute("ROLLBACK")
        except RuntimeError:
            pass  # a failed statement already aborted the transaction

    # -- access marks --------------------------------------------------------------------
    def mark_accessed(self, namespace: str, ids: Sequence[str], at: float) -> None:
        if self._access is None:
            with self._lock:
                super().mark_accessed(namespace, ids, at)
                self._evict(namespace, ids)
            return
        with self._lock:
            self._access.add(namespace, ids, at)
            if self._access.due():
                self._write_access()
                # Folded into the database, the marks stop slowing reads; left to Ladybug,
                # that waits for 16 MB of log (~100k marks) while reads grow slower.
                if not self._in_transaction:
                    self._checkpoint()

    def live_episodes(self, namespace: str, ids: Sequence[str], now: float) -> list[Episode]:
        with self._lock:
            if self._episodes is None:
                episodes = super().live_episodes(namespace, ids, now)
            else:
                episodes, missing = self._episodes.split(namespace, ids, now)
                read = super().live_episodes(namespace, missing, now)
                self._episodes.put(namespace, read)
                episodes += read
            return episodes if self._access is None else self._access.overlay(namespace, episodes)

    def touch(self, namespace: str, touches: Sequence[tuple[str, float, str]]) -> None:
        with self._lock:
            super().touch(namespace, touches)
            if self._episodes is None:
                return
            for episode_id, at, source in touches:  # in order: one may be touched twice
                episode = self._episodes.get(namespace, episode_id)
                if episode is not None:
                    self._episodes.put(namespace, [touched(episode, at, source)])

    def _mark_held(self, namespace: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Cached episodes as the marks being written leave them (evicting them would lose
        the very episodes recall reads most)."""
        if self._episodes is None:
            return
        for row in rows:
            episode = self._episodes.get(namespace, row["id"])
            if episode is not None:
                self._episodes.put(namespace, [marked(episode, row["at"], row["n"])])

    def _evict(self, namespace: str, ids: Sequence[str]) -> None:
        if self._episodes is not None:
            self._episodes.evict(namespace, ids)

    def _checkpoint(self) -> None:
        try:
            self._execute("CHECKPOINT", {})
        except StoreUnavailable:
            pass  # the next checkpoint, Ladybug's own or on close, folds them in

    def _write_access(self) -> None:
        """Write the held marks, if any."""
        if not self._access:
            return
        for namespace, rows in self._access.drain().items():
            self._mark_held(namespace, rows)
            try:
                self._run(self._q.mark_accessed_rows, {"rows": rows, "ns": namespace})
            except StoreUnavailable:
                pass  # bookkeeping only, as when recall marks at once: nothing waits on it

    # -- the MENTIONS index ---------------------------------------------------------------
    @contextmanager
    def _index_kept_by_caller(self) -> Iterator[MentionIndex | None]:
        """Writes the caller applies to the index itself: they must not drop it. (A rollback
        after the caller applied one still drops it.)"""
        with self._lock:
            self._caller_keeps_index = True
            try:
                yield self._mentions
            finally:
                self._caller_keeps_index = False

    def write(self, batch: GraphBatch) -> None:
        with self._index_kept_by_caller() as mentions:
            super().write(batch)
            if mentions is not None:
                mentions.apply(batch)
            self._hold_written(batch.episodes)

    def _hold_written(self, episodes: Sequence[Episode]) -> None:
        """Hold the episodes a batch wrote as a read would return them (through the same
        rows): the recalls that follow a bulk store ask mostly for the newest episodes.
        A rollback of an enclosing transaction drops them with the rest."""
        if self._episodes is None:
            return
        for episode in episodes[-self._episodes.max_episodes :]:
            self._episodes.put(episode.namespace, [episode_from(episode_row(episode))])

    # Forgetting and restoring are frequent enough not to make the next recall read it all.
    def soft_delete(self, namespace: str, episode_id: str, at: float) -> bool:
        with self._index_kept_by_caller() as mentions:
            deleted = super().soft_delete(namespace, episode_id, at)
            self._evict(namespace, [episode_id])
            if deleted and mentions is not None:
                mentions.set_deleted(namespace, episode_id, at)
        return deleted

    def restore(self, namespace: str, episode_id: str) -> bool:
        with self._index_kept_by_caller() as mentions:
            restored = super().restore(namespace, episode_id)  # a deleted one is never held
            if restored and mentions is not None:
                mentions.set_deleted(namespace, episode_id, None)
        return restored

    def entity_links(
        self, namespace: str, episode_ids: Sequence[str], now: float, max_degree: int
    ) -> list[EntityLink]:
        return self._answer(
            namespace,
            lambda index: index.entity_links(episode_ids, now, max_degree),
            lambda: super(LadybugGraphStore, self).entity_links(namespace, episode_ids, now, max_degree),
        )

    def episodes_mentioning(
        self, namespace: str, entity_ids: Sequence[str], now: float, limit: int
    ) -> list[EntityLink]:
        return self._answer(
            namespace,
            lambda index: index.episodes_mentioning(entity_ids, now, limit),
            lambda: super(LadybugGraphStore, self).episodes_mentioning(namespace, entity_ids, now, limit),
        )

    def find_entities(self, namespace: str, canonicals: Sequence[str]) -> list[Entity]:
        # The statement scans every entity (no index on names): ~0.5 ms a recall at 10k
        # episodes, more when the query's embedding takes the cores.
        if not canonicals:
            return []
        with self._lock:
            mentions = self._indexed(namespace)
            if mentions is None:
                return super().find_entities(namespace, canonicals)
            return mentions.find_entities(canonicals)

    def find_by_hash(self, namespace: str, hashes: Sequence[str], now: float) -> dict[str, str]:
        # The statement scans the namespace (Ladybug indexes only primary keys): once a
        # batch, store_many would grow quadratic (512 hashes: 36 ms at 6k episodes, 115 ms
        # at 35k).
        if not hashes:
            return {}
        with self._lock:
            mentions = self._indexed(namespace)
            if mentions is None:
                return super().find_by_hash(namespace, hashes, now)
            return mentions.find_by_hash(hashes, now)

    def _answer(
        self,
        namespace: str,
        from_index: Callable[[NamespaceMentions], list[EntityLink]],
        from_statement: Callable[[], list[EntityLink]],
    ) -> list[EntityLink]:
        """From the namespace's index, or by the statement when there is none (under the
        lock: a batch being applied must not change the index mid-read)."""
        with self._lock:
            mentions = self._indexed(namespace)
            return from_statement() if mentions is None else from_index(mentions)

    def facts_about(
        self, namespace: str, entity_ids: Sequence[str], include_closed: bool, *, whole: bool = False
    ) -> list[Fact]:
        with self._lock:
            if not include_closed and entity_ids:
                mentions = self._indexed(namespace)
                if mentions is not None and not mentions.active_facts:
                    return []
            return super().facts_about(namespace, entity_ids, include_closed, whole=whole)

    def graph_reads(self, namespace: str) -> GraphReads:
        if self._mentions is None:
            return "statements"
        with self._lock:
            if self._mentions.get(namespace) is not None:
                return "index"
            if not self._mentions.admits(namespace):
                return "statements"
            size = int(self._run(self._q.index_size, {"ns": namespace})[0][0])
            return "index" if self._mentions.admits(namespace, size) else "statements"

    def _indexed(self, namespace: str) -> NamespaceMentions | None:
        """The namespace's index, read from the graph at its first use (None when off, or
        when the namespace is too large to hold)."""
        if self._mentions is None or not self._mentions.admits(namespace):
            return None
        mentions = self._mentions.get(namespace)
        if mentions is None:
            ns = {"ns": namespace}
            episodes = self._run(self._q.index_episodes, ns)
            if not self._mentions.admits(namespace, len(episodes)):
                return None
            mentions = NamespaceMentions.from_rows(
                episodes,
                [entity_from(row[0]) for row in self._run(self._q.index_entities, ns)],
                self._run(self._q.index_mentions, ns),
                active_facts=bool(self._run(self._q.count_facts, ns)[0][0]),
            )
            self._mentions.put(namespace, mentions)
        return mentions

    def read_cypher(
        self, query: str, params: Mapping[str, Any], max_rows: int, timeout_ms: int
    ) -> CypherRows:
        with self._lock:
            self._write_access()
            try:
                self._conn.set_query_timeout(timeout_ms)
                # A read-only transaction: Ladybug itself refuses any write inside it.
                self._conn.execute("BEGIN TRANSACTION READ ONLY")
                try:
                    result = self._conn.execute(query, dict(params))
                    assert not isinstance(result, list)
                    rows: list[list[Any]] = []
                    while result.has_next() and len(rows) <= max_rows:
                        rows.append([plain(v) for v in result.get_next()])
                    columns = [str(c) for c in result.get_column_names()]
                finally:
                    self._rollback()
                    self._conn.set_query_timeout(0)
            except RuntimeError as exc:
                if str(exc).startswith(_QUERY_FAULTS):
                    raise InvalidInput("query", f"the graph cannot run it: {exc}") from None
                raise StoreUnavailable(f"graph query failed: {exc}") from exc
        return CypherRows(columns=columns, rows=rows[:max_rows], truncated=len(rows) > max_rows)

    def close(self) -> None:
        with self._lock:
            self._write_access()
            self._conn.close()
            self._db.close()

