"""The embedded graph store on Ladybug (an embedded Cypher database on disk).

All of this backend's Cypher lives here and in `ladybug_cypher.py` (the batch statements).
One connection, guarded by a re-entrant lock: Ladybug allows one writer, and a transaction
must not interleave with another thread's reads on the same connection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import ladybug

from engine.errors import StoreUnavailable, WriteFailed
from engine.models import Decision, Entity, Episode, Stats, session_node_id
from engine.stores.base import CypherRows, EntityLink, GraphBatch
from engine.stores.ladybug_admin import LadybugAdmin
from engine.stores.ladybug_cypher import (
    CLOSE_FACTS,
    CREATE_DECISIONS,
    CREATE_EPISODES,
    CREATE_FACTS,
    CREATE_REFLECTIONS,
    ENTITY_PATHS,
    LINKS,
    LIVE_EP,
    MERGE_ENTITIES,
    MERGE_SESSIONS,
    SUPERSEDE,
    UPDATE_FACTS,
)
from engine.stores.ladybug_rows import (
    decision_from,
    entity_from,
    episode_from,
    episode_row,
    plain,
    properties,
)
from engine.views import Fact
from graph_schema import NODES, RELATIONSHIPS, SCHEMA_VERSION, ladybug_ddl, ladybug_migrations

__all__ = ["LadybugGraphStore"]

_Record = TypeVar("_Record", Entity, Decision)

# A live episode: not deleted, not archived, not expired at $now.

def _fact_row(fact: Fact) -> dict[str, Any]:
    return fact.model_dump(exclude={"subject", "object", "valid_to", "invalidated_by"})


class LadybugGraphStore(LadybugAdmin):
    """`GraphStore` on an embedded Ladybug database at `path` (created when missing)."""

    def __init__(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = ladybug.Database(str(path))
            self._conn = ladybug.Connection(self._db)
        except (RuntimeError, OSError) as exc:
            raise StoreUnavailable(f"cannot open the graph at {path}: {exc}") from exc
        self._lock = threading.RLock()
        self._in_transaction = False
        for statement in ladybug_ddl():
            self._run(statement)
        for statement in ladybug_migrations(self._columns()):
            self._run(statement)
        self._run(
            "MERGE (v:SchemaVersion {id: 'graph'}) SET v.version = $version",
            {"version": SCHEMA_VERSION},
        )

    def _columns(self) -> dict[str, set[str]]:
        tables = [n.label for n in NODES] + [r.name for r in RELATIONSHIPS]
        return {
            table: {str(row[1]) for row in self._run(f"CALL table_info('{table}') RETURN *")}
            for table in tables
        }

    # -- plumbing -------------------------------------------------------------------------
    def _run(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        with self._lock:
            try:
                result = self._conn.execute(query, dict(params or {}))
                assert not isinstance(result, list)
                return [list(row) for row in result.get_all()]
            except RuntimeError as exc:
                raise StoreUnavailable(f"graph query failed: {exc}") from exc

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._in_transaction:  # nested: the outer transaction decides
                yield
                return
            self._run("BEGIN TRANSACTION")
            self._in_transaction = True
            try:
                yield
            except BaseException:
                self._in_transaction = False
                self._rollback()
                raise
            self._in_transaction = False
            try:
                self._run("COMMIT")
            except StoreUnavailable as exc:
                raise WriteFailed(f"graph commit failed: {exc}") from exc

    def _rollback(self) -> None:
        try:
            self._conn.execute("ROLLBACK")
        except RuntimeError:
            pass  # a failed statement already aborted the transaction

    # -- writes ---------------------------------------------------------------------------
    def write(self, batch: GraphBatch) -> None:
        with self.transaction():
            if batch.episodes:
                self._run(CREATE_EPISODES, {"rows": [episode_row(e) for e in batch.episodes]})
            if batch.entities:
                self._run(MERGE_ENTITIES, {"rows": [e.model_dump() for e in batch.entities]})
            if batch.decisions:
                self._run(CREATE_DECISIONS, {"rows": [d.model_dump() for d in batch.decisions]})
            if batch.sessions:
                self._run(MERGE_SESSIONS, {"rows": [s.model_dump() for s in batch.sessions]})
            if batch.mentions:
                rows = [{"a": a, "b": b, "n": n} for a, b, n in batch.mentions]
                self._run(LINKS["mentions"], {"rows": rows})
            if batch.part_of:
                rows = [{"a": a, "b": b, "n": n} for a, b, n in batch.part_of]
                self._run(LINKS["part_of"], {"rows": rows})
            for name in ("decided", "about", "in_session", "next", "supersedes"):
                pairs: list[tuple[str, str]] = getattr(batch, name)
                if pairs:
                    self._run(LINKS[name], {"rows": [{"a": a, "b": b} for a, b in pairs]})
            if batch.supersedes:
                self._run(SUPERSEDE, {"rows": [{"b": b} for _, b in batch.supersedes]})
            self._write_semantic(batch)

    def _write_semantic(self, batch: GraphBatch) -> None:
        """FACT edges and Reflection nodes (inside `write`'s transaction)."""
        if batch.facts:
            self._run(CREATE_FACTS, {"rows": [_fact_row(f) for f in batch.facts]})
        if batch.fact_updates:
            self._run(UPDATE_FACTS, {"rows": [_fact_row(f) for f in batch.fact_updates]})
        if batch.fact_closes:
            rows = [{"old": old, "new": new, "at": at} for old, new, at in batch.fact_closes]
            self._run(CLOSE_FACTS, {"rows": rows})
        if batch.reflections:
            rows = [r.model_dump(exclude={"status"}) for r in batch.reflections]
            self._run(CREATE_REFLECTIONS, {"rows": rows})

    def namespaces(self) -> list[str]:
        rows = self._run("MATCH (ep:Episode) RETURN DISTINCT ep.namespace ORDER BY ep.namespace")
        return [str(row[0]) for row in rows]

    def reflection_cursor(self, namespace: str) -> float:
        rows = self._run(
            "MATCH (r:Reflection) WHERE r.namespace = $ns RETURN max(r.until)", {"ns": namespace}
        )
        return float(rows[0][0]) if rows and rows[0][0] is not None else 0.0

    def episodes_after(
        self, namespace: str, after: float, now: float, limit: int
    ) -> list[Episode]:
        rows = self._run(
            "MATCH (ep:Episode) WHERE ep.namespace = $ns AND ep.created_at > $after AND "
            + LIVE_EP + " RETURN ep ORDER BY ep.created_at, ep.id LIMIT $limit",
            {"ns": namespace, "after": after, "now": now, "limit": limit},
        )
        return [episode_from(row[0]) for row in rows]

    def mark_accessed(self, namespace: str, ids: Sequence[str], at: float) -> None:
        if ids:
            self._run(
                "MATCH (ep:Episode) WHERE ep.id IN $ids AND ep.namespace = $ns SET "
                "ep.last_accessed_at = $at, ep.access_count = coalesce(ep.access_count, 0) + 1",
                {"ids": list(ids), "ns": namespace, "at": at},
            )

    def touch(self, namespace: str, touches: Sequence[tuple[str, float, str]]) -> None:
        if not touches:
            return
        rows = [{"id": i, "at": at, "source": source} for i, at, source in touches]
        with self.transaction():
            # One row at a time: the same episode may be touched twice in a batch.
            for row in rows:
                self._run(
                    "MATCH (ep:Episode {id: $id}) WHERE ep.namespace = $ns SET "
                    "ep.last_seen = CASE WHEN ep.last_seen IS NULL OR $at > ep.last_seen "
                    "THEN $at ELSE ep.last_seen END, "
                    "ep.access_count = coalesce(ep.access_count, 0) + 1, "
                    "ep.sources = list_append(coalesce(ep.sources, CAST([] AS STRING[])), $source)",
                    {**row, "ns": namespace},
                )

    def soft_delete(self, namespace: str, episode_id: str, at: float) -> bool:
        rows = self._run(
            "MATCH (ep:Episode {id: $id}) WHERE ep.namespace = $ns AND " + LIVE_EP
            + " SET ep.deleted_at = $at RETURN ep.id",
            {"id": episode_id, "ns": namespace, "at": at, "now": at},
        )
        return bool(rows)

    # -- reads ----------------------------------------------------------------------------
    def last_episode_in_session(self, namespace: str, session_id: str) -> str | None:
        rows = self._run(
            "MATCH (ep:Episode)-[:IN_SESSION]->(s:Session {id: $sid}) "
            "RETURN ep.id ORDER BY ep.occurred_at DESC, ep.created_at DESC LIMIT 1",
            {"sid": session_node_id(namespace, session_id)},
        )
        return str(rows[0][0]) if rows else None

    def get_episodes(self, namespace: str, ids: Sequence[str]) -> list[Episode]:
        if not ids:
            return []
        rows = self._run(
            "MATCH (ep:Episode) WHERE ep.id IN $ids AND ep.namespace = $ns RETURN ep",
            {"ids": list(ids), "ns": namespace},
        )
        return [episode_from(row[0]) for row in rows]

    def live_episode_ids(self, namespace: str, ids: Sequence[str], now: float) -> set[str]:
        if not ids:
            return set()
        rows = self._run(
            "MATCH (ep:Episode) WHERE ep.id IN $ids AND ep.namespace = $ns AND " + LIVE_EP
            + " RETURN ep.id",
            {"ids": list(ids), "ns": namespace, "now": now},
        )
        return {str(row[0]) for row in rows}

    def list_episodes(
        self,
        namespace: str,
        *,
        session_id: str | None,
        limit: int,
        offset: int,
        include_deleted: bool,
        layer: str | None = None,
    ) -> list[Episode]:
        where = ["ep.namespace = $ns"]
        if session_id is not None:
            where.append("ep.session_id = $sid")
        if layer is not None:
            where.append("ep.layer = $layer")
        if not include_deleted:
            where.append("ep.deleted_at IS NULL")
        rows = self._run(
            "MATCH (ep:Episode) WHERE " + " AND ".join(where)
            + " RETURN ep ORDER BY ep.occurred_at DESC, ep.created_at DESC SKIP $skip LIMIT $limit",
            {"ns": namespace, "sid": session_id, "layer": layer, "skip": offset, "limit": limit},
        )
        return [episode_from(row[0]) for row in rows]

    def entities_of(self, namespace: str, episode_ids: Sequence[str]) -> dict[str, list[Entity]]:
        return self._per_episode(
            "MATCH (ep:Episode)-[:MENTIONS]->(x:Entity) WHERE ep.id IN $ids AND ep.namespace = $ns "
            "RETURN ep.id, x ORDER BY x.name",
            namespace,
            episode_ids,
            entity_from,
        )

    def _per_episode(
        self,
        query: str,
        namespace: str,
        episode_ids: Sequence[str],
        convert: Callable[[Mapping[str, Any]], _Record],
    ) -> dict[str, list[_Record]]:
        """Rows of (episode id, node) grouped by episode, in the query's order."""
        if not episode_ids:
            return {}
        found: dict[str, list[_Record]] = {}
        for episode_id, node in self._run(query, {"ids": list(episode_ids), "ns": namespace}):
            found.setdefault(str(episode_id), []).append(convert(node))
        return found

    def find_entities(self, namespace: str, canonicals: Sequence[str]) -> list[Entity]:
        if not canonicals:
            return []
        rows = self._run(
            "MATCH (en:Entity) WHERE en.namespace = $ns AND "
            "(en.canonical IN $names OR list_has_any(en.aliases, $names)) RETURN en",
            {"ns": namespace, "names": list(canonicals)},
        )
        return [entity_from(row[0]) for row in rows]

    def episodes_mentioning(
        self, namespace: str, entity_ids: Sequence[str], now: float, limit: int
    ) -> list[EntityLink]:
        if not entity_ids:
            return []
        rows = self._run(
            ENTITY_PATHS.format(
                where="en.id IN $ids", tail="ORDER BY ep.occurred_at DESC LIMIT $limit"
            ),
            {"ids": list(entity_ids), "ns": namespace, "now": now, "limit": limit},
        )
        rows.sort(key=lambda row: -float(row[5] or 0.0))
        return [_link(row) for row in rows[:limit]]

    def entity_links(self, namespace: str, episode_ids: Sequence[str], now: float) -> list[EntityLink]:
        if not episode_ids:
            return []
        rows = self._run(
            ENTITY_PATHS.format(where="ep.id IN $ids", tail=""),
            {"ids": list(episode_ids), "ns": namespace, "now": now},
        )
        return [_link(row) for row in rows]

    def recent_episode_ids(
        self, namespace: str, session_id: str | None, now: float, limit: int
    ) -> list[str]:
        session = " AND ep.session_id = $sid" if session_id is not None else ""
        rows = self._run(
            "MATCH (ep:Episode) WHERE ep.namespace = $ns AND " + LIVE_EP + session
            + " RETURN ep.id ORDER BY ep.occurred_at DESC, ep.created_at DESC LIMIT $limit",
            {"ns": namespace, "sid": session_id, "now": now, "limit": limit},
        )
        return [str(row[0]) for row in rows]

    def find_by_hash(self, namespace: str, hashes: Sequence[str], now: float) -> dict[str, str]:
        if not hashes:
            return {}
        rows = self._run(
            "MATCH (ep:Episode) WHERE ep.namespace = $ns AND ep.content_hash IN $hashes AND "
            + LIVE_EP + " RETURN ep.content_hash, ep.id ORDER BY ep.created_at",
            {"ns": namespace, "hashes": list(hashes), "now": now},
        )
        found: dict[str, str] = {}
        for digest, episode_id in rows:
            found.setdefault(str(digest), str(episode_id))  # the first stored one
        return found

    def entities_with_prefix(self, namespace: str, prefixes: Sequence[str]) -> list[Entity]:
        if not prefixes:
            return []
        rows = self._run(
            "MATCH (en:Entity) WHERE en.namespace = $ns AND "
            "list_any_value(list_transform($prefixes, p -> starts_with(en.canonical, p))) "
            "RETURN en",
            {"ns": namespace, "prefixes": sorted(set(prefixes))},
        )
        return [entity_from(row[0]) for row in rows]

    def active_decisions(self, namespace: str, subjects: Sequence[str]) -> list[Decision]:
        if not subjects:
            return []
        rows = self._run(
            "MATCH (d:Decision) WHERE d.namespace = $ns AND d.status = 'active' AND "
            "list_has_any(d.subjects, $subjects) RETURN d ORDER BY d.decided_at",
            {"ns": namespace, "subjects": sorted(set(subjects))},
        )
        return [decision_from(row[0]) for row in rows]

    def decisions_of(self, namespace: str, episode_ids: Sequence[str]) -> dict[str, list[Decision]]:
        return self._per_episode(
            "MATCH (ep:Episode)-[:DECIDED]->(x:Decision) WHERE ep.id IN $ids AND "
            "ep.namespace = $ns RETURN ep.id, x ORDER BY x.decided_at",
            namespace,
            episode_ids,
            decision_from,
        )

    def decisions_about(
        self, namespace: str, entity_ids: Sequence[str], limit: int
    ) -> list[Decision]:
        if not entity_ids:
            return []
        rows = self._run(
            "MATCH (d:Decision)-[:ABOUT]->(en:Entity) WHERE en.id IN $ids AND d.namespace = $ns "
            "RETURN DISTINCT d ORDER BY d.decided_at DESC LIMIT $limit",
            {"ids": list(entity_ids), "ns": namespace, "limit": limit},
        )
        return [decision_from(row[0]) for row in rows]

    def session_neighbours(
        self, namespace: str, episode_id: str
    ) -> tuple[Episode | None, Episode | None]:
        rows = self._run(
            "MATCH (prev:Episode)-[:NEXT]->(ep:Episode {id: $id}) WHERE ep.namespace = $ns "
            "RETURN 'previous', prev UNION ALL "
            "MATCH (ep:Episode {id: $id})-[:NEXT]->(nxt:Episode) WHERE ep.namespace = $ns "
            "RETURN 'next', nxt",
            {"id": episode_id, "ns": namespace},
        )
        found = {str(side): episode_from(node) for side, node in rows}
        return found.get("previous"), found.get("next")

    def facts_about(
        self, namespace: str, entity_ids: Sequence[str], include_closed: bool
    ) -> list[Fact]:
        if not entity_ids:
            return []
        active = "" if include_closed else " AND f.valid_to IS NULL"
        rows = self._run(
            "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $ns AND "
            "(a.id IN $ids OR b.id IN $ids)" + active
            + " RETURN a.name, b.name, f, a.id, b.id ORDER BY f.confidence DESC, f.valid_from DESC",
            {"ids": list(entity_ids), "ns": namespace},
        )
        facts = []
        for subject, obj, edge, subject_id, object_id in rows:
            data = properties(edge)
            facts.append(
                Fact.model_validate(
                    {"subject": subject, "object": obj, "subject_id": subject_id,
                     "object_id": object_id, **data}
                )  # fmt: skip
            )
        return facts

    def read_cypher(
        self, query: str, params: Mapping[str, Any], max_rows: int, timeout_ms: int
    ) -> CypherRows:
        with self._lock:
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
                raise StoreUnavailable(f"graph query failed: {exc}") from exc
        return CypherRows(columns=columns, rows=rows[:max_rows], truncated=len(rows) > max_rows)

    def stats(self, namespace: str | None, now: float) -> Stats:
        scope = "" if namespace is None else " AND {v}.namespace = $ns"
        params = {"ns": namespace, "now": now}

        def count(query: str) -> int:
            return int(self._run(query, params)[0][0])

        return Stats(
            namespace=namespace,
            episodes=count(
                "MATCH (ep:Episode) WHERE " + LIVE_EP + scope.format(v="ep") + " RETURN count(ep)"
            ),
            entities=count(
                "MATCH (en:Entity) WHERE true" + scope.format(v="en") + " RETURN count(en)"
            ),
            decisions=count(
                "MATCH (d:Decision) WHERE d.status = 'active'" + scope.format(v="d")
                + " RETURN count(d)"
            ),
            facts=count(
                "MATCH (a:Entity)-[f:FACT]->(:Entity) WHERE f.valid_to IS NULL"
                + scope.format(v="a") + " RETURN count(f)"
            ),
        )

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._db.close()


def _link(row: Sequence[Any]) -> EntityLink:
    return EntityLink(
        episode_id=str(row[0]),
        entity_id=str(row[1]),
        entity_name=str(row[2]),
        decision_id=None if row[3] is None else str(row[3]),
        degree=int(row[4] or 0),
    )

