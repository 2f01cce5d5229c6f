"""The graph protocol in Cypher, once for every Cypher backend.

A backend subclass supplies the connection: `_execute` (one statement, rows as lists with
nodes and relationships as property dicts), `_run_all` (a list of statements as one
transaction), `transaction`, `read_cypher` and `close`. The statements come from
`GraphStatements` in the backend's dialect, so Ladybug and Neo4j run the same queries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from engine.models import Decision, Entity, Episode, GraphReads, Stats, session_node_id
from engine.stores.base import (
    SESSION_WINDOW,
    EntityLink,
    GraphBatch,
    HopRows,
    NamedRows,
    ReadAhead,
    WindowRow,
)
from engine.stores.cypher_admin import CypherAdmin
from engine.stores.cypher_dialect import Dialect
from engine.stores.cypher_digests import CypherDigests
from engine.stores.cypher_parts import Statement
from engine.stores.cypher_statements import GraphStatements
from engine.stores.cypher_work import CypherWork, resolution_row
from engine.stores.graph_rows import (
    decision_from,
    entity_from,
    episode_from_columns,
    episode_row,
    fact_row,
    facts_from,
    link_from,
)
from engine.views import Fact

__all__ = ["CypherGraphStore", "one_fact_away", "reached"]

_Record = TypeVar("_Record", Entity, Decision)
Plan = list[tuple[Statement, Mapping[str, Any]]]


class CypherGraphStore(CypherAdmin, CypherDigests, CypherWork):
    """`GraphStore` over any connection that runs `GraphStatements` of one dialect."""

    _q: GraphStatements  # the statements of both mixins

    def __init__(self, dialect: Dialect) -> None:
        self._q = GraphStatements(dialect)
        q = self._q
        # Recall's reads: none reads an access field (`live_episodes` overlays held marks), so
        # a backend holding access marks in process need not write them first.
        self._recall_reads = frozenset(
            s.text
            for s in (
                q.find_entities, q.facts_about, q.facts_by_id, q.count_facts, q.paths_to_entities,
                q.paths_from_episodes, q.live_episodes, q.mark_accessed_rows, q.index_size,
            )
        )  # fmt: skip

    def _execute(
        self, query: str, params: Mapping[str, Any], *, write: bool = True
    ) -> list[list[Any]]:
        """Run one statement; `write=False` promises it changes nothing."""
        raise NotImplementedError

    def _run(self, statement: Statement, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        given = dict(params or {})
        statement.check(list(given))
        return self._execute(statement.text, given, write=statement.writes)

    # -- writes ---------------------------------------------------------------------------
    def write(self, batch: GraphBatch) -> None:
        self._run_all(self._write_plan(batch))

    def _write_plan(self, batch: GraphBatch) -> Plan:
        q = self._q
        plan: Plan = []

        def add(statement: Statement, rows: list[dict[str, Any]]) -> None:
            if rows:
                plan.append((statement, {"rows": rows}))

        add(q.create_episodes, [episode_row(e) for e in batch.episodes])
        add(q.merge_entities, [e.model_dump() for e in batch.entities])
        add(q.create_decisions, [d.model_dump() for d in batch.decisions])
        add(q.merge_sessions, [s.model_dump() for s in batch.sessions])
        add(q.links["mentions"], [{"a": a, "b": b, "n": n} for a, b, n in batch.mentions])
        add(q.links["part_of"], [{"a": a, "b": b, "n": n} for a, b, n in batch.part_of])
        add(q.step_of, [{"a": a, "b": b, "n": n} for a, b, n in batch.steps])
        for name in ("decided", "about", "in_session", "next", "supersedes"):
            pairs: list[tuple[str, str]] = getattr(batch, name)
            add(q.links[name], [{"a": a, "b": b} for a, b in pairs])
        add(q.supersede, [{"b": b} for _, b in batch.supersedes])
        add(q.create_resolutions, [resolution_row(r) for r in batch.resolutions])
        add(q.not_held, [{"failure": f, "fix": x, "recurred_by": by} for f, x, by in batch.not_held])
        add(q.create_facts, [fact_row(f) for f in batch.facts])
        add(q.update_facts, [fact_row(f) for f in batch.fact_updates])
        add(q.close_facts, [{"old": old, "new": new, "at": at} for old, new, at in batch.fact_closes])
        add(q.create_reflections, [r.model_dump(exclude={"status"}) for r in batch.reflections])
        return plan

    def touch(self, namespace: str, touches: Sequence[tuple[str, float, str]]) -> None:
        # One statement per touch: the same episode may be touched twice in a batch.
        self._run_all(
            [
                (self._q.touch, {"id": i, "at": at, "source": source, "ns": namespace})
                for i, at, source in touches
            ]
        )

    def mark_accessed(self, namespace: str, ids: Sequence[str], at: float) -> None:
        if ids:
            self._run(self._q.mark_accessed, {"ids": _distinct(ids), "ns": namespace, "at": at})

    def soft_delete(self, namespace: str, episode_id: str, at: float) -> bool:
        params = {"id": episode_id, "ns": namespace, "at": at, "now": at}
        return bool(self._run(self._q.soft_delete, params))

    # -- reads ----------------------------------------------------------------------------
    def namespaces(self) -> list[str]:
        return [str(row[0]) for row in self._run(self._q.namespaces)]

    def reflection_cursor(self, namespace: str) -> tuple[float, str]:
        rows = self._run(self._q.reflection_cursor, {"ns": namespace})
        if not rows or rows[0][0] is None:
            return 0.0, ""
        return float(rows[0][0]), str(rows[0][1] or "")

    def episodes_after(
        self, namespace: str, after: tuple[float, str], now: float, limit: int
    ) -> list[Episode]:
        params = {"ns": namespace, "after": after[0], "after_id": after[1], "now": now, "limit": limit}
        return [episode_from_columns(row) for row in self._run(self._q.episodes_after, params)]

    def last_episode_in_session(self, namespace: str, session_id: str) -> str | None:
        rows = self._run(
            self._q.last_episode_in_session, {"sid": session_node_id(namespace, session_id)}
        )
        return str(rows[0][0]) if rows else None

    def get_episodes(self, namespace: str, ids: Sequence[str]) -> list[Episode]:
        if not ids:
            return []
        rows = self._run(self._q.get_episodes, {"ids": _distinct(ids), "ns": namespace})
        return [episode_from_columns(row) for row in rows]

    def live_episodes(self, namespace: str, ids: Sequence[str], now: float) -> list[Episode]:
        if not ids:
            return []
        params = {"ids": _distinct(ids), "ns": namespace, "now": now}
        return [episode_from_columns(row) for row in self._run(self._q.live_episodes, params)]

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
        params: dict[str, Any] = {
            "ns": namespace, "sid": session_id or "", "layer": layer or "",
            "include_deleted": include_deleted,
        }  # fmt: skip
        # An ordered SKIP past the end is answered here: Ladybug sizes its top-k by
        # skip + limit, and a skip of 10^9 crashes the process.
        if offset and offset >= int(self._run(self._q.count_listed, params)[0][0]):
            return []
        rows = self._run(self._q.list_episodes, {**params, "skip": offset, "limit": limit})
        return [episode_from_columns(row) for row in rows]

    def recent_episode_ids(
        self, namespace: str, session_id: str | None, now: float, limit: int
    ) -> list[str]:
        params = {"ns": namespace, "sid": session_id or "", "now": now, "limit": limit}
        return [str(row[0]) for row in self._run(self._q.recent_episode_ids, params)]

    def find_by_hash(self, namespace: str, hashes: Sequence[str], now: float) -> dict[str, str]:
        if not hashes:
            return {}
        rows = self._run(self._q.find_by_hash, {"ns": namespace, "hashes": list(hashes), "now": now})
        found: dict[str, str] = {}
        for digest, episode_id in rows:
            found.setdefault(str(digest), str(episode_id))  # the first stored one
        return found

    def session_neighbours(
        self, namespace: str, episode_id: str
    ) -> tuple[Episode | None, Episode | None]:
        rows = self._run(self._q.session_neighbours, {"id": episode_id, "ns": namespace})
        found = {str(row[0]): episode_from_columns(row[1:]) for row in rows}
        return found.get("previous"), found.get("next")

    def session_windows(self, namespace: str, episode_ids: Sequence[str]) -> list[WindowRow]:
        if not episode_ids:
            return []
        rows = self._run(self._q.session_windows, {"ids": _distinct(episode_ids), "ns": namespace})
        offsets = [0, *range(1, SESSION_WINDOW + 1), *range(-1, -SESSION_WINDOW - 1, -1)]
        found: dict[tuple[str, int], WindowRow] = {}
        for row in rows:  # one wide row per episode (more if a chain forks)
            for position, offset in enumerate(offsets):
                nid, content, live = row[1 + 3 * position : 4 + 3 * position]
                if nid is not None:
                    found.setdefault((str(row[0]), offset), WindowRow(
                        episode_id=str(row[0]), offset=offset, neighbour_id=str(nid),
                        content=str(content or ""), live=bool(live),
                    ))  # fmt: skip
        return list(found.values())

    def next_turns(self, namespace: str, episode_ids: Sequence[str]) -> dict[str, str]:
        if not episode_ids:
            return {}
        rows = self._run(self._q.next_turns, {"ids": _distinct(episode_ids), "ns": namespace})
        return {str(i): str(n) for i, n in rows if n is not None}

    def entities_of(self, namespace: str, episode_ids: Sequence[str]) -> dict[str, list[Entity]]:
        return self._per_episode(self._q.entities_of, namespace, episode_ids, entity_from)

    def decisions_of(self, namespace: str, episode_ids: Sequence[str]) -> dict[str, list[Decision]]:
        return self._per_episode(self._q.decisions_of, namespace, episode_ids, decision_from)

    def _per_episode(
        self,
        statement: Statement,
        namespace: str,
        episode_ids: Sequence[str],
        convert: Callable[[Mapping[str, Any]], _Record],
    ) -> dict[str, list[_Record]]:
        """Rows of (episode id, node) grouped by episode, in the query's order."""
        if not episode_ids:
            return {}
        found: dict[str, list[_Record]] = {}
        for episode_id, node in self._run(statement, {"ids": _distinct(episode_ids), "ns": namespace}):
            found.setdefault(str(episode_id), []).append(convert(node))
        return found

    def find_entities(self, namespace: str, canonicals: Sequence[str]) -> list[Entity]:
        if not canonicals:
            return []
        rows = self._run(self._q.find_entities, {"ns": namespace, "names": list(canonicals)})
        return [entity_from(row[0]) for row in rows]

    def entities_with_prefix(self, namespace: str, prefixes: Sequence[str]) -> list[Entity]:
        if not prefixes:
            return []
        params = {"ns": namespace, "prefixes": sorted(set(prefixes))}
        return [entity_from(row[0]) for row in self._run(self._q.entities_with_prefix, params)]

    def active_decisions(self, namespace: str, subjects: Sequence[str]) -> list[Decision]:
        if not subjects:
            return []
        params = {"ns": namespace, "subjects": sorted(set(subjects))}
        return [decision_from(row[0]) for row in self._run(self._q.active_decisions, params)]

    def decisions_about(
        self, namespace: str, entity_ids: Sequence[str], limit: int
    ) -> list[Decision]:
        if not entity_ids:
            return []
        params = {"ids": list(entity_ids), "ns": namespace, "limit": limit}
        return [decision_from(row[0]) for row in self._run(self._q.decisions_about, params)]

    def episodes_mentioning(
        self, namespace: str, entity_ids: Sequence[str], now: float, limit: int
    ) -> list[EntityLink]:
        if not entity_ids:
            return []
        params = {"ids": list(entity_ids), "ns": namespace, "now": now, "limit": limit}
        return [link_from(row) for row in self._run(self._q.paths_to_entities, params)]

    def entity_links(
        self, namespace: str, episode_ids: Sequence[str], now: float, max_degree: int
    ) -> list[EntityLink]:
        if not episode_ids:
            return []
        params = {"ids": _distinct(episode_ids), "ns": namespace, "now": now, "max_degree": max_degree}
        return [link_from(row) for row in self._run(self._q.paths_from_episodes, params)]

    def facts_about(
        self, namespace: str, entity_ids: Sequence[str], include_closed: bool, *, whole: bool = False
    ) -> list[Fact]:
        if not entity_ids:
            return []
        params = {"ids": list(entity_ids), "ns": namespace, "include_closed": include_closed}
        return facts_from(self._run(self._q.facts_about, params), shown=not whole)

    def named_rows(
        self, namespace: str, canonicals: Sequence[str], now: float, max_degree: int, limit: int
    ) -> NamedRows:
        entities = self.find_entities(namespace, canonicals)
        named = [e.id for e in entities if e.mention_count <= max_degree]
        return NamedRows(
            entities=entities,
            mentions=self.episodes_mentioning(namespace, named, now, limit),
            facts=self.facts_about(namespace, [e.id for e in entities], include_closed=True),
        )

    def hop_rows(
        self, namespace: str, frontier: Mapping[str, Sequence[str]], now: float, max_degree: int, limit: int
    ) -> HopRows:
        links = self.entity_links(namespace, list(frontier), now, max_degree)
        via = reached(links, frontier)
        if not via:
            return HopRows(links=links, facts=[], mentions=[])
        facts = self.facts_about(namespace, via, include_closed=False)
        mentions = self.episodes_mentioning(namespace, via + one_fact_away(facts, via), now, limit)
        return HopRows(links=links, facts=facts, mentions=mentions)

    def read_ahead(
        self, namespace: str, episode_ids: Sequence[str], next_of: Sequence[str], fact_ids: Sequence[str],
        digest_ids: Sequence[str], now: float,
    ) -> ReadAhead | None:  # fmt: skip
        return None  # in process: recall reads only what it comes to need

    def facts_by_id(self, namespace: str, ids: Sequence[str], include_closed: bool) -> list[Fact]:
        if not ids:
            return []
        params = {"ids": _distinct(ids), "ns": namespace, "include_closed": include_closed}
        return facts_from(self._run(self._q.facts_by_id, params))

    def active_facts(self, namespace: str) -> list[Fact]:
        return facts_from(self._run(self._q.active_facts, {"ns": namespace}))

    def stats(self, namespace: str | None, now: float) -> Stats:
        ns = namespace or ""

        def count(statement: Statement, **params: Any) -> int:
            return int(self._run(statement, {"ns": ns, **params})[0][0])

        return Stats(
            namespace=namespace,
            episodes=count(self._q.count_episodes, now=now),
            entities=count(self._q.count_entities),
            decisions=count(self._q.count_decisions),
            facts=count(self._q.count_facts),
            graph_reads=None if namespace is None else self.graph_reads(namespace),
        )

    def graph_reads(self, namespace: str) -> GraphReads:
        return "statements"


def reached(links: Sequence[EntityLink], frontier: Mapping[str, Sequence[str]]) -> list[str]:
    """The entities a hop reaches: each that a frontier episode links to, other than one on
    that episode's own path (a path never walks back), once each in the order linked.

    >>> link = lambda episode, entity: EntityLink(episode, entity, entity, 1)
    >>> reached([link("e1", "a"), link("e1", "b"), link("e2", "a")], {"e1": ["a"], "e2": []})
    ['b', 'a']
    """
    return list(dict.fromkeys(
        link.entity_id for link in links if link.entity_id not in frontier.get(link.episode_id, ())
    ))  # fmt: skip


def one_fact_away(facts: Sequence[Fact], via: Sequence[str]) -> list[str]:
    """The entities at the other end of an active fact from one in `via`, not in it."""
    inside = set(via)
    far = [f.object_id if f.subject_id in inside else f.subject_id for f in facts]
    return list(dict.fromkeys(e for e in far if e not in inside))


def _distinct(ids: Sequence[str]) -> list[str]:
    """Ids once each: statements that UNWIND them would return (or update) a repeat twice."""
    return list(dict.fromkeys(ids))
