"""The embedded graph store on Ladybug (an embedded Cypher database on disk).

All of this backend's Cypher lives here. One connection, guarded by a re-entrant lock: Ladybug
allows one writer, and a transaction must not interleave with another thread's reads on the
same connection.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import ladybug

from engine.errors import StoreUnavailable, WriteFailed
from engine.models import Decision, Entity, Episode, Stats, session_node_id
from engine.stores.base import CypherRows, EntityLink, GraphBatch
from engine.views import Fact
from graph_schema import NODES, RELATIONSHIPS, SCHEMA_VERSION, ladybug_ddl, ladybug_migrations
from graph_schema.definitions import EPISODE

__all__ = ["LadybugGraphStore"]

_Record = TypeVar("_Record", Entity, Decision)

# A live episode: not deleted, not archived, not expired at $now.
_LIVE = (
    "{v}.deleted_at IS NULL AND {v}.archived_at IS NULL "
    "AND ({v}.expires_at IS NULL OR {v}.expires_at > $now)"
)
LIVE_EP = _LIVE.format(v="ep")

_EPISODE_JSON_FIELDS = ("metadata", "numbers")


def _episode_row(episode: Episode) -> dict[str, Any]:
    row = episode.model_dump(mode="json")
    for field in _EPISODE_JSON_FIELDS:
        row[field] = json.dumps(row[field], ensure_ascii=False)
    return row


def _properties(node: Mapping[str, Any]) -> dict[str, Any]:
    """A node's properties; NULLs dropped so the model's defaults apply (a column added by a
    migration is NULL on older rows)."""
    return {k: v for k, v in node.items() if not k.startswith("_") and v is not None}


def _episode_from(node: Mapping[str, Any]) -> Episode:
    data = _properties(node)
    for field in _EPISODE_JSON_FIELDS:
        data[field] = json.loads(data[field]) if data.get(field) else ([] if field == "numbers" else {})
    data["todos"] = data.get("todos") or []
    data["related_ids"] = data.get("related_ids") or []
    return Episode.model_validate(data)


def _entity_from(node: Mapping[str, Any]) -> Entity:
    data = _properties(node)
    data["aliases"] = data.get("aliases") or []
    return Entity.model_validate(data)


def _decision_from(node: Mapping[str, Any]) -> Decision:
    return Decision.model_validate(_properties(node))


def _plain(value: Any) -> Any:
    """A Ladybug value as plain JSON-able data: nodes and relationships as property maps.

    >>> _plain({"_ID": {"offset": 0, "table": 0}, "_LABEL": "Entity", "name": "Atlas"})
    {'label': 'Entity', 'name': 'Atlas'}
    >>> _plain({"_NODES": [], "_RELS": [{"_SRC": {}, "_DST": {}, "_LABEL": "NEXT", "_ID": {}}]})
    {'nodes': [], 'relationships': [{'type': 'NEXT'}]}
    """
    if isinstance(value, dict):
        if "_NODES" in value:
            return {
                "nodes": [_plain(n) for n in value["_NODES"]],
                "relationships": [_plain(r) for r in value["_RELS"]],
            }
        if "_LABEL" in value:
            key = "type" if "_SRC" in value else "label"
            props = {k: _plain(v) for k, v in value.items() if not k.startswith("_")}
            return {key: value["_LABEL"], **props}
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)  # dates, decimals, uuids: their text


def _set_clause(var: str, properties: Sequence[tuple[str, str]]) -> str:
    """SET with explicit casts: a column that is NULL in every row would be typed STRING."""
    return ", ".join(
        f"{var}.`{name}` = r.`{name}`" if kind == "STRING" else f"{var}.`{name}` = CAST(r.`{name}` AS {kind})"
        for name, kind in properties
        if name != "id"
    )


_CREATE_EPISODES = "UNWIND $rows AS r CREATE (n:Episode {id: r.id}) SET " + _set_clause(
    "n", EPISODE.properties
)
_MERGE_ENTITIES = (
    "UNWIND $rows AS r MERGE (n:Entity {id: r.id}) "
    "ON CREATE SET n.namespace = r.namespace, n.created_at = r.created_at, n.name = r.name, "
    "n.canonical = r.canonical, n.type = r.type, n.aliases = r.aliases, "
    "n.first_seen = r.first_seen, n.last_seen = r.last_seen, n.mention_count = r.mention_count "
    "ON MATCH SET n.mention_count = n.mention_count + r.mention_count, "
    "n.aliases = list_distinct(list_concat(coalesce(n.aliases, CAST([] AS STRING[])), r.aliases)), "
    "n.last_seen = CASE WHEN r.last_seen > n.last_seen THEN r.last_seen ELSE n.last_seen END, "
    "n.first_seen = CASE WHEN r.first_seen < n.first_seen THEN r.first_seen ELSE n.first_seen END"
)
_CREATE_DECISIONS = (
    "UNWIND $rows AS r CREATE (n:Decision {id: r.id}) SET n.namespace = r.namespace, "
    "n.created_at = r.created_at, n.text = r.text, n.status = r.status, "
    "n.decided_at = r.decided_at, n.subjects = r.subjects"
)
_SUPERSEDE = "UNWIND $rows AS r MATCH (d:Decision {id: r.b}) SET d.status = 'superseded'"
_MERGE_SESSIONS = (
    "UNWIND $rows AS r MERGE (n:Session {id: r.id}) ON CREATE SET n.namespace = r.namespace, "
    "n.created_at = r.created_at, n.name = r.name, n.started_at = r.started_at"
)
# Separate MATCH clauses: a joint `MATCH (a), (b)` after UNWIND is pathologically slow here.
_LINK = "UNWIND $rows AS r MATCH (a:{src} {{id: r.a}}) MATCH (b:{dst} {{id: r.b}}) CREATE (a)-[:{rel}{props}]->(b)"
_LINKS: dict[str, str] = {
    "mentions": _LINK.format(src="Episode", dst="Entity", rel="MENTIONS", props=" {count: r.n}"),
    "decided": _LINK.format(src="Episode", dst="Decision", rel="DECIDED", props=""),
    "about": _LINK.format(src="Decision", dst="Entity", rel="ABOUT", props=""),
    "in_session": _LINK.format(src="Episode", dst="Session", rel="IN_SESSION", props=""),
    "next": _LINK.format(src="Episode", dst="Episode", rel="NEXT", props=""),
    "part_of": _LINK.format(src="Episode", dst="Episode", rel="PART_OF", props=" {`index`: r.n}"),
    "supersedes": _LINK.format(src="Decision", dst="Decision", rel="SUPERSEDES", props=""),
}


# Entity merge: move every edge of $absorb to $keep (without doubling one that exists), fold
# names and counts, then remove the absorbed node.
_MERGE_STATEMENTS = (
    "MATCH (ep:Episode)-[m:MENTIONS]->(b:Entity {id: $absorb}) MATCH (a:Entity {id: $keep}) "
    "WHERE NOT EXISTS { MATCH (ep)-[:MENTIONS]->(a) } CREATE (ep)-[:MENTIONS {count: m.count}]->(a)",
    "MATCH (d:Decision)-[:ABOUT]->(b:Entity {id: $absorb}) MATCH (a:Entity {id: $keep}) "
    "WHERE NOT EXISTS { MATCH (d)-[:ABOUT]->(a) } CREATE (d)-[:ABOUT]->(a)",
    "MATCH (b:Entity {id: $absorb})-[f:FACT]->(o:Entity) MATCH (a:Entity {id: $keep}) "
    "CREATE (a)-[:FACT {predicate: f.predicate, statement: f.statement, confidence: "
    "f.confidence, support: f.support, valid_from: f.valid_from, valid_to: f.valid_to, "
    "source_episode_ids: f.source_episode_ids, reflection_id: f.reflection_id, "
    "invalidated_by: f.invalidated_by}]->(o)",
    "MATCH (o:Entity)-[f:FACT]->(b:Entity {id: $absorb}) MATCH (a:Entity {id: $keep}) "
    "CREATE (o)-[:FACT {predicate: f.predicate, statement: f.statement, confidence: "
    "f.confidence, support: f.support, valid_from: f.valid_from, valid_to: f.valid_to, "
    "source_episode_ids: f.source_episode_ids, reflection_id: f.reflection_id, "
    "invalidated_by: f.invalidated_by}]->(a)",
    "MATCH (a:Entity {id: $keep}), (b:Entity {id: $absorb}) SET "
    "a.aliases = list_distinct(list_concat(list_concat(coalesce(a.aliases, CAST([] AS STRING[])), "
    "coalesce(b.aliases, CAST([] AS STRING[]))), [b.canonical])), "
    "a.mention_count = a.mention_count + b.mention_count, "
    "a.first_seen = CASE WHEN b.first_seen < a.first_seen THEN b.first_seen ELSE a.first_seen END, "
    "a.last_seen = CASE WHEN b.last_seen > a.last_seen THEN b.last_seen ELSE a.last_seen END",
    "MATCH (b:Entity {id: $absorb}) DETACH DELETE b",
)

# Episodes and the entities they reach, directly (MENTIONS) or through a decision (DECIDED,
# ABOUT), in one round trip; {where} selects the episodes or the entities, {tail} orders/limits.
_ENTITY_PATHS = (
    "MATCH (ep:Episode)-[:MENTIONS]->(en:Entity) WHERE {where} AND ep.namespace = $ns AND "
    + LIVE_EP
    + " RETURN ep.id, en.id, en.name, CAST(NULL AS STRING) AS decision, en.mention_count, "
    "ep.occurred_at {tail} UNION ALL "
    "MATCH (ep:Episode)-[:DECIDED]->(d:Decision)-[:ABOUT]->(en:Entity) WHERE {where} AND "
    "ep.namespace = $ns AND " + LIVE_EP
    + " RETURN ep.id, en.id, en.name, d.id AS decision, en.mention_count, ep.occurred_at {tail}"
)


class LadybugGraphStore:
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
                self._run(_CREATE_EPISODES, {"rows": [_episode_row(e) for e in batch.episodes]})
            if batch.entities:
                self._run(_MERGE_ENTITIES, {"rows": [e.model_dump() for e in batch.entities]})
            if batch.decisions:
                self._run(_CREATE_DECISIONS, {"rows": [d.model_dump() for d in batch.decisions]})
            if batch.sessions:
                self._run(_MERGE_SESSIONS, {"rows": [s.model_dump() for s in batch.sessions]})
            if batch.mentions:
                rows = [{"a": a, "b": b, "n": n} for a, b, n in batch.mentions]
                self._run(_LINKS["mentions"], {"rows": rows})
            if batch.part_of:
                rows = [{"a": a, "b": b, "n": n} for a, b, n in batch.part_of]
                self._run(_LINKS["part_of"], {"rows": rows})
            for name in ("decided", "about", "in_session", "next", "supersedes"):
                pairs: list[tuple[str, str]] = getattr(batch, name)
                if pairs:
                    self._run(_LINKS[name], {"rows": [{"a": a, "b": b} for a, b in pairs]})
            if batch.supersedes:
                self._run(_SUPERSEDE, {"rows": [{"b": b} for _, b in batch.supersedes]})

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

    def merge_entities(self, namespace: str, keep_id: str, absorb_id: str) -> Entity:
        params = {"keep": keep_id, "absorb": absorb_id, "ns": namespace}
        with self.transaction():
            found = self._run(
                "MATCH (a:Entity {id: $keep}), (b:Entity {id: $absorb}) WHERE a.namespace = $ns "
                "AND b.namespace = $ns RETURN a.id",
                params,
            )
            if not found:
                raise StoreUnavailable(f"entities {keep_id} and {absorb_id} not both in {namespace}")
            for statement in _MERGE_STATEMENTS:
                self._run(statement, params)
        return self._entity(namespace, keep_id)

    def add_alias(self, namespace: str, entity_id: str, alias: str) -> Entity:
        self._run(
            "MATCH (en:Entity {id: $id}) WHERE en.namespace = $ns SET en.aliases = "
            "list_distinct(list_append(coalesce(en.aliases, CAST([] AS STRING[])), $alias))",
            {"id": entity_id, "ns": namespace, "alias": alias},
        )
        return self._entity(namespace, entity_id)

    def _entity(self, namespace: str, entity_id: str) -> Entity:
        rows = self._run(
            "MATCH (en:Entity {id: $id}) WHERE en.namespace = $ns RETURN en",
            {"id": entity_id, "ns": namespace},
        )
        if not rows:
            raise StoreUnavailable(f"entity {entity_id} vanished from {namespace}")
        return _entity_from(rows[0][0])

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
        return [_episode_from(row[0]) for row in rows]

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
        return [_episode_from(row[0]) for row in rows]

    def entities_of(self, namespace: str, episode_ids: Sequence[str]) -> dict[str, list[Entity]]:
        return self._per_episode(
            "MATCH (ep:Episode)-[:MENTIONS]->(x:Entity) WHERE ep.id IN $ids AND ep.namespace = $ns "
            "RETURN ep.id, x ORDER BY x.name",
            namespace,
            episode_ids,
            _entity_from,
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
        return [_entity_from(row[0]) for row in rows]

    def episodes_mentioning(
        self, namespace: str, entity_ids: Sequence[str], now: float, limit: int
    ) -> list[EntityLink]:
        if not entity_ids:
            return []
        rows = self._run(
            _ENTITY_PATHS.format(
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
            _ENTITY_PATHS.format(where="ep.id IN $ids", tail=""),
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
        return [_entity_from(row[0]) for row in rows]

    def active_decisions(self, namespace: str, subjects: Sequence[str]) -> list[Decision]:
        if not subjects:
            return []
        rows = self._run(
            "MATCH (d:Decision) WHERE d.namespace = $ns AND d.status = 'active' AND "
            "list_has_any(d.subjects, $subjects) RETURN d ORDER BY d.decided_at",
            {"ns": namespace, "subjects": sorted(set(subjects))},
        )
        return [_decision_from(row[0]) for row in rows]

    def decisions_of(self, namespace: str, episode_ids: Sequence[str]) -> dict[str, list[Decision]]:
        return self._per_episode(
            "MATCH (ep:Episode)-[:DECIDED]->(x:Decision) WHERE ep.id IN $ids AND "
            "ep.namespace = $ns RETURN ep.id, x ORDER BY x.decided_at",
            namespace,
            episode_ids,
            _decision_from,
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
        return [_decision_from(row[0]) for row in rows]

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
        found = {str(side): _episode_from(node) for side, node in rows}
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
            + " RETURN a.name, b.name, f ORDER BY f.confidence DESC, f.valid_from DESC",
            {"ids": list(entity_ids), "ns": namespace},
        )
        facts = []
        for subject, obj, edge in rows:
            data = _properties(edge)
            facts.append(Fact.model_validate({"subject": subject, "object": obj, **data}))
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
                        rows.append([_plain(v) for v in result.get_next()])
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

