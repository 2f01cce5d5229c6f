"""Ladybug store, the administrative half: restore, delete, entity curation, export/import.

Mixed into `LadybugGraphStore`, which provides `_run` and `transaction`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from engine.errors import StoreUnavailable
from engine.models import Entity
from engine.stores.base import LifecycleRow
from engine.stores.ladybug_cypher import MERGE_STATEMENTS, set_clause
from engine.stores.ladybug_rows import entity_from, properties
from graph_schema import NODES, RELATIONSHIPS

__all__ = ["LadybugAdmin"]


class LadybugAdmin:
    def _run(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        raise NotImplementedError

    def transaction(self) -> AbstractContextManager[None]:
        raise NotImplementedError

    def restore(self, namespace: str, episode_id: str) -> bool:
        rows = self._run(
            "MATCH (ep:Episode {id: $id}) WHERE ep.namespace = $ns AND ep.deleted_at IS NOT NULL "
            "SET ep.deleted_at = CAST(NULL AS DOUBLE) RETURN ep.id",
            {"id": episode_id, "ns": namespace},
        )
        return bool(rows)

    def delete_episodes(self, namespace: str, ids: Sequence[str]) -> list[str]:
        if not ids:
            return []
        params = {"ids": list(ids), "ns": namespace}
        with self.transaction():
            decisions = [
                str(row[0])
                for row in self._run(
                    "MATCH (ep:Episode)-[:DECIDED]->(d:Decision) WHERE ep.id IN $ids AND "
                    "ep.namespace = $ns RETURN DISTINCT d.id",
                    params,
                )
            ]
            self._run(
                "MATCH (ep:Episode)-[:MENTIONS]->(en:Entity) WHERE ep.id IN $ids AND "
                "ep.namespace = $ns SET en.mention_count = en.mention_count - 1",
                params,
            )
            self._run(
                "MATCH (d:Decision) WHERE d.id IN $decisions DETACH DELETE d",
                {"decisions": decisions},
            )
            self._run(
                "MATCH (ep:Episode) WHERE ep.id IN $ids AND ep.namespace = $ns DETACH DELETE ep",
                params,
            )
        return decisions

    def lifecycle_rows(self, namespace: str) -> list[LifecycleRow]:
        rows = self._run(
            "MATCH (ep:Episode) WHERE ep.namespace = $ns AND ep.deleted_at IS NULL RETURN ep.id, "
            "ep.importance, ep.occurred_at, ep.created_at, ep.last_accessed_at, ep.last_seen, "
            "ep.expires_at",
            {"ns": namespace},
        )
        keys = ("id", "importance", "occurred_at", "created_at", "last_accessed_at",
                "last_seen", "expires_at")  # fmt: skip
        return [LifecycleRow.model_validate(dict(zip(keys, row, strict=True))) for row in rows]

    def episode_states(self) -> dict[str, tuple[str, bool]]:
        rows = self._run("MATCH (ep:Episode) RETURN ep.id, ep.namespace, ep.deleted_at IS NOT NULL")
        return {str(i): (str(ns), bool(deleted)) for i, ns, deleted in rows}

    def export_records(self) -> list[tuple[str, dict[str, Any]]]:
        records: list[tuple[str, dict[str, Any]]] = []
        for node in NODES:
            for (found,) in self._run(f"MATCH (n:{node.label}) RETURN n ORDER BY n.id"):
                records.append((node.label, properties(found)))
        for rel in RELATIONSHIPS:
            rows = self._run(
                f"MATCH (a:{rel.source})-[r:{rel.name}]->(b:{rel.target}) RETURN a.id, b.id, r "
                "ORDER BY a.id, b.id"
            )
            for src, dst, edge in rows:
                records.append((f"rel:{rel.name}", {"src": src, "dst": dst, **properties(edge)}))
        return records

    def import_records(self, records: Sequence[tuple[str, dict[str, Any]]]) -> None:
        nodes = {n.label: n for n in NODES}
        rels = {r.name: r for r in RELATIONSHIPS}
        with self.transaction():
            for label, node in nodes.items():
                rows = [_full(r, node.properties) for kind, r in records if kind == label]
                if rows:
                    self._run(
                        f"UNWIND $rows AS r CREATE (n:{label} {{id: r.id}}) SET "
                        + set_clause("n", node.properties),
                        {"rows": rows},
                    )
            for name, rel in rels.items():
                rows = [
                    {"src": r["src"], "dst": r["dst"], **_full(r, rel.properties)}
                    for kind, r in records
                    if kind == f"rel:{name}"
                ]
                if rows:
                    props = ", ".join(
                        f"`{p}`: " + (f"r.`{p}`" if t == "STRING" else f"CAST(r.`{p}` AS {t})")
                        for p, t in rel.properties
                    )
                    self._run(
                        f"UNWIND $rows AS r MATCH (a:{rel.source} {{id: r.src}}) "
                        f"MATCH (b:{rel.target} {{id: r.dst}}) "
                        f"CREATE (a)-[:{name} {{{props}}}]->(b)",
                        {"rows": rows},
                    )

    def decision_links(self, namespace: str, decision_ids: Sequence[str]) -> list[tuple[str, str]]:
        if not decision_ids:
            return []
        rows = self._run(
            "MATCH (d:Decision)-[:ABOUT]->(en:Entity) WHERE d.id IN $ids AND d.namespace = $ns "
            "RETURN d.id, en.id",
            {"ids": list(decision_ids), "ns": namespace},
        )
        return [(str(d), str(e)) for d, e in rows]

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
            for statement in MERGE_STATEMENTS:
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
        return entity_from(rows[0][0])


def _full(record: Mapping[str, Any], properties: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """A row with every property of the type (absent ones NULL), for an UNWIND import."""
    return {name: record.get(name) for name, _ in properties}

