"""One analyst Cypher query, checked before and after it runs (`Memory.cypher`).

Before: read-only (`guard`); a schema procedure called alone is answered from
hindsight's own schema (`schema_procedures`); anything else must use `$namespace` and tie
every pattern to it (`scope`). After: every node returned belongs to the namespace or
the shared one. No refusal names another namespace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.analyst.guard import (
    bind_params,
    check_read_only,
    foreign_namespaces,
    references_parameter,
)
from engine.analyst.schema_procedures import answer_schema_call, starts_with_schema_call
from engine.analyst.scope import unscoped_parts
from engine.errors import InvalidInput
from engine.settings import Settings
from engine.stores.base import AnalystGraph
from engine.views import CypherResult

__all__ = ["analyst_query"]


def analyst_query(
    graph: AnalystGraph, query: str, params: Mapping[str, Any] | None, *, namespace: str, settings: Settings
) -> CypherResult:
    """The rows of `query` in `namespace` (already validated), `$namespace` bound to it.

    Raises:
        ReadOnlyViolation: the query writes, or is more than one statement.
        InvalidInput: bad `params`, a query not tied to `$namespace`, or one that returned
            another namespace's nodes.
        InvalidInput: also when the graph cannot run the query (its syntax, an unknown
            function, label or property, arithmetic past 64 bits).
        StoreUnavailable: the graph does not answer, or the query ran out of time.
    """
    statement = check_read_only(query)
    bound = bind_params(params)
    if starts_with_schema_call(statement):
        return answer_schema_call(statement)
    if not references_parameter(statement, "namespace"):
        raise InvalidInput("query", "must filter on $namespace, e.g. WHERE n.namespace = $namespace")
    bound["namespace"] = namespace
    unscoped = unscoped_parts(statement)
    if unscoped:
        raise InvalidInput(
            "query",
            f"refused: {unscoped[0]}. Every pattern needs a node pinned by "
            "WHERE <var>.namespace = $namespace (a top-level AND) or "
            "{namespace: $namespace}, or bound to one by an earlier pattern",
        )
    rows = graph.read_cypher(
        statement, bound, max_rows=settings.cypher_max_rows, timeout_ms=settings.cypher_timeout_ms
    )
    if foreign_namespaces(rows.rows, {namespace, settings.shared_namespace}):
        raise InvalidInput(  # never names the namespace: that would tell it exists
            "query", "returned nodes of another namespace; filter every matched node on $namespace"
        )
    return CypherResult(columns=rows.columns, rows=rows.rows, truncated=rows.truncated)
