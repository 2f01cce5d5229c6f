"""The production graph store on Neo4j 5 (a single server, a cluster or Aura), through the
official `neo4j` driver.

The queries are `CypherGraphStore`'s, in the Neo4j dialect, always parameterised. Work
outside `transaction()` runs in its own transaction, retried with backoff (tenacity) on
transient errors and lost connections; work inside `transaction()` shares one explicit
transaction per thread and is not retried (its caller's block cannot be replayed), so a
failure there rolls back and surfaces as `WriteFailed`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
import neo4j.exceptions as neo4j_errors
from neo4j.graph import Node, Path, Relationship

from engine.errors import StoreUnavailable, WriteFailed
from engine.stores.base import CypherRows
from engine.stores.cypher_dialect import NEO4J
from engine.stores.cypher_graph import CypherGraphStore
from engine.stores.cypher_statements import Statement
from engine.stores.retry import Retry
from graph_schema.neo4j import apply as apply_schema

__all__ = ["Neo4jGraphStore", "neo4j_value"]

_T = TypeVar("_T")

# Worth another attempt: the cluster is electing a leader, a lock timed out, the server
# restarted. Anything else (a syntax error, a constraint) fails at once.
_RETRYABLE = (
    neo4j_errors.TransientError,
    neo4j_errors.ServiceUnavailable,
    neo4j_errors.SessionExpired,
)
_DRIVER_ERRORS = (neo4j_errors.Neo4jError, neo4j_errors.DriverError)


class Neo4jGraphStore(CypherGraphStore):
    """`GraphStore` on the Neo4j database `database` at `uri`.

    Connecting is retried `attempts` times with exponential backoff up to `max_wait` seconds
    between attempts, because a server started beside us (docker compose) is not ready at once.
    """

    def __init__(
        self,
        uri: str,
        *,
        user: str,
        password: str,
        database: str = "neo4j",
        attempts: int = 5,
        max_wait: float = 8.0,
    ) -> None:
        super().__init__(NEO4J)
        self._database = database
        self._retry = Retry(_RETRYABLE, attempts, max_wait)
        self._local = threading.local()
        try:
            self._driver = neo4j.GraphDatabase.driver(uri, auth=(user, password))
        except (*_DRIVER_ERRORS, ValueError) as exc:
            raise StoreUnavailable(f"cannot reach Neo4j at {uri}: {exc}") from exc
        try:
            self._retry(self._driver.verify_connectivity, "Neo4j")
            apply_schema(self._execute)
        except (StoreUnavailable, *_DRIVER_ERRORS) as exc:
            self._driver.close()
            raise StoreUnavailable(f"cannot reach Neo4j at {uri}: {exc}") from exc

    # -- plumbing -------------------------------------------------------------------------
    def _session(self, mode: str = neo4j.WRITE_ACCESS) -> neo4j.Session:
        return self._driver.session(database=self._database, default_access_mode=mode)

    def _in_own_transaction(self, work: Callable[[neo4j.Transaction], _T]) -> _T:
        """Run `work` in a new transaction, committed at the end and retried when transient."""

        def attempt() -> _T:
            with self._session() as session, session.begin_transaction() as tx:
                result = work(tx)
                tx.commit()
                return result

        try:
            return self._retry(attempt, "Neo4j")
        except _DRIVER_ERRORS as exc:
            raise StoreUnavailable(f"graph query failed: {exc}") from exc

    def _execute(self, query: str, params: Mapping[str, Any]) -> list[list[Any]]:
        tx: neo4j.Transaction | None = getattr(self._local, "tx", None)
        if tx is None:
            return self._in_own_transaction(lambda own: _rows(own.run(query, dict(params))))
        try:
            return _rows(tx.run(query, dict(params)))
        except _DRIVER_ERRORS as exc:
            raise StoreUnavailable(f"graph query failed: {exc}") from exc

    def _run_all(self, plan: Sequence[tuple[Statement, Mapping[str, Any]]]) -> None:
        if not plan:
            return
        if getattr(self._local, "tx", None) is not None:  # inside the caller's transaction
            for statement, params in plan:
                self._run(statement, params)
            return

        def work(tx: neo4j.Transaction) -> None:
            for statement, params in plan:
                statement.check(list(params))
                tx.run(statement.text, dict(params)).consume()

        try:
            self._in_own_transaction(work)
        except StoreUnavailable as exc:
            raise WriteFailed(f"nothing written: {exc}") from exc

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if getattr(self._local, "tx", None) is not None:  # nested: the outer one decides
            yield
            return
        try:
            session = self._session()
            tx = session.begin_transaction()
        except _DRIVER_ERRORS as exc:
            raise StoreUnavailable(f"cannot begin a Neo4j transaction: {exc}") from exc
        self._local.tx = tx
        try:
            try:
                yield
            except BaseException:
                _quietly(tx.rollback)
                raise
            try:
                tx.commit()
            except _DRIVER_ERRORS as exc:
                raise WriteFailed(f"graph commit failed: {exc}") from exc
        finally:
            self._local.tx = None
            _quietly(session.close)

    def read_cypher(
        self, query: str, params: Mapping[str, Any], max_rows: int, timeout_ms: int
    ) -> CypherRows:
        @neo4j.unit_of_work(timeout=timeout_ms / 1000)
        def work(tx: neo4j.ManagedTransaction) -> tuple[list[str], list[list[Any]]]:
            result = tx.run(query, dict(params))
            rows: list[list[Any]] = []
            for record in result:
                rows.append([neo4j_value(v) for v in record.values()])
                if len(rows) > max_rows:
                    break
            return list(result.keys()), rows

        # A READ access-mode transaction: Neo4j itself refuses any write inside it.
        try:
            with self._session(neo4j.READ_ACCESS) as session:
                columns, rows = session.execute_read(work)
        except neo4j_errors.ClientError as exc:
            if "AccessMode" in (exc.code or ""):
                raise StoreUnavailable(f"the read-only transaction refused a write: {exc}") from exc
            raise StoreUnavailable(f"graph query failed: {exc}") from exc
        except _DRIVER_ERRORS as exc:
            raise StoreUnavailable(f"graph query failed: {exc}") from exc
        return CypherRows(columns=columns, rows=rows[:max_rows], truncated=len(rows) > max_rows)

    def close(self) -> None:
        self._driver.close()


def _rows(result: neo4j.Result) -> list[list[Any]]:
    """Records as lists, nodes and relationships as property dicts (as Ladybug returns them)."""
    return [[_properties(v) for v in record.values()] for record in result]


def _properties(value: Any) -> Any:
    if isinstance(value, (Node, Relationship)):
        return dict(value.items())
    return value


def neo4j_value(value: Any) -> Any:
    """A driver value as plain JSON-able data: nodes as {label, ...}, relationships as
    {type, ...}, paths as {nodes, relationships}, temporal values as ISO text."""
    if isinstance(value, Node):
        label = next(iter(sorted(value.labels)), "")
        return {"label": label, **{k: neo4j_value(v) for k, v in value.items()}}
    if isinstance(value, Relationship):
        return {"type": value.type, **{k: neo4j_value(v) for k, v in value.items()}}
    if isinstance(value, Path):
        return {
            "nodes": [neo4j_value(n) for n in value.nodes],
            "relationships": [neo4j_value(r) for r in value.relationships],
        }
    if isinstance(value, dict):
        return {str(k): neo4j_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [neo4j_value(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _quietly(action: Callable[[], object]) -> None:
    try:
        action()
    except _DRIVER_ERRORS:
        pass  # the connection is gone; the server rolls back what was not committed
