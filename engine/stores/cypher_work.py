"""An agent's work in Cypher, once for every Cypher backend: a task run's steps and the
failures' fixes. The statements (`WorkStatements`, part of `GraphStatements`) and the methods
(`CypherWork`, mixed into `CypherGraphStore`).

A step is linked `STEP_OF {index}` to its task; a failure `RESOLVED_BY` to the step that fixed
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.models import Episode, Resolution, session_node_id
from engine.stores.cypher_dialect import Dialect
from engine.stores.cypher_parts import (
    CypherRunner,
    StatementSet,
    episode_columns,
    from_episodes,
    live_condition,
    statement,
)
from engine.stores.graph_rows import episode_from_columns

__all__ = ["CypherWork", "WorkStatements", "resolution_row"]

_EDGE = "x.at, x.derived_by, x.confirmed_by, x.held, x.recurred_by"


class WorkStatements(StatementSet):
    """The writes and reads of task steps and of RESOLVED_BY edges."""

    def __init__(self, d: Dialect) -> None:
        super().__init__(d)
        self.step_of = statement(
            "UNWIND $rows AS r MATCH (a:Episode {id: r.a}) MATCH (b:Episode {id: r.b}) "
            "CREATE (a)-[:STEP_OF {`index`: r.n}]->(b)",
            "rows",
        )
        self.create_resolutions = statement(
            "UNWIND $rows AS r MATCH (a:Episode {id: r.failure_id}) MATCH (b:Episode {id: r.fix_id}) "
            "CREATE (a)-[:RESOLVED_BY {at: r.at, derived_by: r.derived_by, confirmed_by: r.confirmed_by, "
            "held: r.held, recurred_by: r.recurred_by}]->(b)",
            "rows",
        )
        self.not_held = statement(
            "UNWIND $rows AS r MATCH (a:Episode {id: r.failure})-[x:RESOLVED_BY]->(b:Episode {id: r.fix}) "
            "SET x.held = false, x.recurred_by = r.recurred_by",
            "rows",
        )
        # Both ends are episodes of one namespace: the edge is only ever written between them.
        self.resolutions_from = statement(
            from_episodes("(ep)-[x:RESOLVED_BY]->(b:Episode)", "b") + f" RETURN ep.id, b.id, {_EDGE}",
            "ids", "ns",
        )
        self.resolutions_to = statement(
            from_episodes("(b:Episode)-[x:RESOLVED_BY]->(ep)", "b") + f" RETURN b.id, ep.id, {_EDGE}",
            "ids", "ns",
        )
        self.task_steps = statement(
            from_episodes("(s:Episode)-[x:STEP_OF]->(ep)", "s")
            + f" RETURN ep.id, x.`index`, {episode_columns('s')} ORDER BY ep.id, x.`index`",
            "ids", "ns",
        )
        self.session_tail = statement(
            "MATCH (ep:Episode)-[:IN_SESSION]->(s:Session {id: $sid}) WHERE ep.namespace = $ns AND "
            f"{live_condition('ep')} RETURN {episode_columns('ep')} "
            "ORDER BY ep.occurred_at DESC, ep.created_at DESC LIMIT $limit",
            "sid", "ns", "now", "limit",
        )


def resolution_row(resolution: Resolution) -> dict[str, Any]:
    """A RESOLVED_BY edge's properties as `create_resolutions` takes them."""
    return resolution.model_dump()


def _resolution(row: Sequence[Any]) -> Resolution:
    failure, fix, at, derived_by, confirmed_by, held, recurred_by = row
    return Resolution(failure_id=str(failure), fix_id=str(fix), at=float(at), derived_by=derived_by,
                      confirmed_by=confirmed_by or None, held=held is not False, recurred_by=recurred_by or None)  # fmt: skip


class CypherWork(CypherRunner):
    """The reads of an agent's work (`GraphLookup.resolutions`, `IngestGraph.task_steps`,
    `IngestGraph.session_tail`)."""

    _q: WorkStatements

    def resolutions(self, namespace: str, episode_ids: Sequence[str]) -> list[Resolution]:
        if not episode_ids:
            return []
        params = {"ids": list(dict.fromkeys(episode_ids)), "ns": namespace}
        found = {
            (r.failure_id, r.fix_id): r
            for statement_ in (self._q.resolutions_from, self._q.resolutions_to)
            for r in map(_resolution, self._run(statement_, params))
        }
        return sorted(found.values(), key=lambda r: (r.at, r.failure_id, r.fix_id))

    def task_steps(self, namespace: str, task_ids: Sequence[str]) -> dict[str, list[tuple[int, Episode]]]:
        if not task_ids:
            return {}
        steps: dict[str, list[tuple[int, Episode]]] = {}
        for row in self._run(self._q.task_steps, {"ids": list(dict.fromkeys(task_ids)), "ns": namespace}):
            steps.setdefault(str(row[0]), []).append((int(row[1]), episode_from_columns(row[2:])))
        return steps

    def session_tail(self, namespace: str, session_id: str, now: float, limit: int) -> list[Episode]:
        params = {"sid": session_node_id(namespace, session_id), "ns": namespace, "now": now, "limit": limit}
        return [episode_from_columns(row) for row in reversed(self._run(self._q.session_tail, params))]
