"""The administrative half of the Cypher graph stores: restore, purge, entity curation,
export and import. Mixed into `CypherGraphStore`, which provides `_run`, `_run_all` and
`transaction`; the statements are the backend's dialect of `GraphStatements`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.errors import StoreUnavailable
from engine.models import Entity, session_node_id
from engine.stores.base import LifecycleRow
from engine.stores.cypher_parts import CypherRunner, Statement
from engine.stores.cypher_statements import GraphStatements
from engine.stores.graph_rows import entity_from, fact_row, facts_from, properties
from engine.views import Fact
from graph_schema import NODES, RELATIONSHIPS

__all__ = ["CypherAdmin", "bridges"]


def bridges(chain: Mapping[str, tuple[str | None, str | None]]) -> list[tuple[str, str]]:
    """The NEXT edges that close a session chain over deleted episodes.

    `chain` maps each deleted episode to its (previous, next) on the chain. A run of deleted
    episodes is bridged from the one before it to the one after it.

    >>> bridges({"b": ("a", "c"), "c": ("b", "d"), "x": (None, "y")})
    [('a', 'd')]
    """
    pairs = []
    for start, (previous, following) in chain.items():
        if previous in chain:
            continue  # inside a run: its first episode bridges it
        seen = {start}
        while following is not None and following in chain and following not in seen:
            seen.add(following)
            following = chain[following][1]
        if previous is not None and following is not None and following not in chain:
            pairs.append((previous, following))
    return pairs


def _id_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _id_of(key: tuple[float, float, str] | None) -> str | None:
    return None if key is None else key[2]


class CypherAdmin(CypherRunner):
    _q: GraphStatements

    def facts_citing(self, namespace: str, episode_ids: Sequence[str]) -> list[Fact]:
        if not episode_ids:
            return []
        return facts_from(self._run(self._q.facts_citing, {"ns": namespace, "ids": list(episode_ids)}), shown=False)

    def revise_facts(self, namespace: str, revised: Sequence[Fact], removed: Sequence[str]) -> list[str]:
        rows = [fact_row(f) for f in revised]
        reopened: list[str] = []
        with self.transaction():
            if rows:
                self._run(self._q.revise_facts, {"rows": rows, "ns": namespace})
            if removed:
                params = {"ns": namespace, "ids": list(removed)}
                reopened = [str(row[0]) for row in self._run(self._q.reopen_facts, params)]
                self._run(self._q.delete_facts, params)
        return reopened

    def mark_forgotten_sources(self, namespace: str, facts: Sequence[Fact]) -> None:
        if facts:
            self._run(self._q.forgotten_sources, {"rows": [fact_row(f) for f in facts], "ns": namespace})

    def prune_entities(self, namespace: str, entity_ids: Sequence[str]) -> None:
        if entity_ids:
            self._run(self._q.prune_entities, {"ns": namespace, "ids": list(dict.fromkeys(entity_ids))})

    def drop_entities(self, namespace: str, entity_ids: Sequence[str], entity_type: str) -> None:
        if entity_ids:
            self._run(self._q.drop_entities, {"ns": namespace, "ids": list(dict.fromkeys(entity_ids)),
                                              "type": entity_type})  # fmt: skip

    def restore(self, namespace: str, episode_id: str) -> bool:
        return bool(self._run(self._q.restore, {"id": episode_id, "ns": namespace}))

    def remove_namespace(self, namespace: str) -> None:
        with self.transaction():
            for each_label in self._q.remove_namespace:
                self._run(each_label, {"ns": namespace})

    def delete_episodes(self, namespace: str, ids: Sequence[str]) -> list[str]:
        if not ids:
            return []
        # Once each: a repeated id would lower its entities' mention counts twice.
        params = {"ids": list(dict.fromkeys(ids)), "ns": namespace}
        with self.transaction():
            chain = self._chain_around(namespace, params["ids"])
            decisions = [str(row[0]) for row in self._run(self._q.decisions_made_by, params)]
            self._run(self._q.drop_mentions, params)
            self._run(self._q.delete_decisions, {"decisions": decisions})
            self._run(self._q.delete_episodes, params)
            # The session reads on across the gap (keyword context, neighbours in `explain`).
            rows = [{"a": a, "b": b} for a, b in bridges(chain)]
            if rows:
                self._run(self._q.links["next"], {"rows": rows})
        return decisions

    def rejoin_session(self, namespace: str, episode_id: str, session_id: str) -> None:
        with self.transaction():
            sid = session_node_id(namespace, session_id)
            order = {  # a session's episodes in time, as the chain was built
                str(i): (float(at), float(created), str(i))
                for i, at, created in self._run(self._q.session_members, {"sid": sid})
            }
            mine = order.pop(episode_id, None)
            if mine is None:
                return
            before = _id_of(max((key for key in order.values() if key < mine), default=None))
            after = _id_of(min((key for key in order.values() if key > mine), default=None))
            chain = self._chain_around(namespace, [episode_id] + ([before] if before else []))
            if chain.get(episode_id, (None, None)) != (None, None):
                return  # on the chain already
            # After the latest episode before it, ahead of whatever follows that one now.
            following = chain[before][1] if before else after
            if before and following:
                self._run(self._q.unlink_next, {"a": before, "b": following})
            pairs = [(before, episode_id), (episode_id, following)]
            rows = [{"a": a, "b": b} for a, b in pairs if a and b]
            if rows:
                self._run(self._q.links["next"], {"rows": rows})

    def _chain_around(self, namespace: str, ids: Sequence[str]) -> dict[str, tuple[str | None, str | None]]:
        """Each episode's (previous, next) on its session chain."""
        rows = self._run(self._q.chain_around, {"ids": ids, "ns": namespace})
        return {str(i): (_id_or_none(prev), _id_or_none(nxt)) for i, prev, nxt in rows}

    def lifecycle_rows(self, namespace: str) -> list[LifecycleRow]:
        rows = self._run(self._q.lifecycle_rows, {"ns": namespace})
        keys = ("id", "importance", "occurred_at", "created_at", "last_accessed_at",
                "last_seen", "expires_at")  # fmt: skip
        return [LifecycleRow.model_validate(dict(zip(keys, row, strict=True))) for row in rows]

    def episode_states(self) -> dict[str, tuple[str, bool]]:
        rows = self._run(self._q.episode_states)
        return {str(i): (str(ns), bool(deleted)) for i, ns, deleted in rows}

    def export_records(self) -> list[tuple[str, dict[str, Any]]]:
        records: list[tuple[str, dict[str, Any]]] = []
        for node in NODES:
            for (found,) in self._run(self._q.export_nodes[node.label]):
                records.append((node.label, properties(found)))
        for rel in RELATIONSHIPS:
            for src, dst, edge in self._run(self._q.export_rels[rel.name]):
                records.append((f"rel:{rel.name}", {"src": src, "dst": dst, **properties(edge)}))
        return records

    def import_records(self, records: Sequence[tuple[str, dict[str, Any]]]) -> None:
        plan: list[tuple[Statement, Mapping[str, Any]]] = []
        for node in NODES:
            rows = [_full(r, node.properties) for kind, r in records if kind == node.label]
            if rows:
                plan.append((self._q.import_nodes[node.label], {"rows": rows}))
        for rel in RELATIONSHIPS:
            rows = [
                {"src": r["src"], "dst": r["dst"], **_full(r, rel.properties)}
                for kind, r in records
                if kind == f"rel:{rel.name}"
            ]
            if rows:
                plan.append((self._q.import_rels[rel.name], {"rows": rows}))
        self._run_all(plan)

    def decision_links(self, namespace: str, decision_ids: Sequence[str]) -> list[tuple[str, str]]:
        if not decision_ids:
            return []
        rows = self._run(self._q.decision_links, {"ids": list(decision_ids), "ns": namespace})
        return [(str(d), str(e)) for d, e in rows]

    def merge_entities(self, namespace: str, keep_id: str, absorb_id: str) -> Entity:
        with self.transaction():
            found = self._run(
                self._q.both_entities, {"keep": keep_id, "absorb": absorb_id, "ns": namespace}
            )
            if not found:
                raise StoreUnavailable(f"entities {keep_id} and {absorb_id} not both in {namespace}")
            for statement in self._q.merge_entity_steps:
                self._run(statement, {"keep": keep_id, "absorb": absorb_id})
        return self._entity(namespace, keep_id)

    def add_alias(self, namespace: str, entity_id: str, alias: str) -> Entity:
        self._run(self._q.add_alias, {"id": entity_id, "ns": namespace, "alias": alias})
        return self._entity(namespace, entity_id)

    def _entity(self, namespace: str, entity_id: str) -> Entity:
        rows = self._run(self._q.entity, {"id": entity_id, "ns": namespace})
        if not rows:
            raise StoreUnavailable(f"entity {entity_id} vanished from {namespace}")
        return entity_from(rows[0][0])


def _full(record: Mapping[str, Any], properties: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """A row with every property of the type (absent ones NULL), for an UNWIND import."""
    return {name: record.get(name) for name, _ in properties}
