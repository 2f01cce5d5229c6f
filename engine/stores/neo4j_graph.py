"""The production graph store on Neo4j 5 (a single server, a cluster or Aura), through the
official `neo4j` driver.

The queries are `CypherGraphStore`'s, in the Neo4j dialect, always parameterised. Work
outside `transaction()` runs in its own transaction, retried with backoff (tenacity) on
transient errors and lost connections; work inside `transaction()` shares one explicit
transaction per thread and is not retried (its caller's block cannot be replayed), so a
failure there rolls back and surfaces as `WriteFailed`.

Statements that change nothing run as auto-commit queries in READ-mode sessions: one round
trip each rather than three, and a routing `neo4j://` URI sends them to a cluster's
followers. Recall's access marks are held in process and written by a background thread
`access_write_seconds` after the first, those of every recall meanwhile in one transaction,
so that recall neither waits on a write nor goes to the leader, and recalls in quick
succession share one write; any other read writes the held marks first, and reads what they
say.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
import neo4j.exceptions as neo4j_errors
from neo4j.graph import Node, Path, Relationship

from engine.errors import InvalidInput, StoreUnavailable, WriteFailed
from engine.models import Episode
from engine.stores.access_log import AccessLog
from engine.stores.base import CypherRows, HopRows, NamedRows, ReadAhead
from engine.stores.cypher_dialect import NEO4J
from engine.stores.cypher_graph import CypherGraphStore
from engine.stores.cypher_parts import Statement
from engine.stores.neo4j_recall import (
    HOP_ROWS,
    NAMED_ROWS,
    READ_AHEAD,
    frontier_rows,
    hop_rows_from,
    named_rows_from,
    read_ahead_from,
)
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
# Neo4j's error codes that fault an analyst's query (syntax, semantics, arithmetic, a procedure), not the server.
_QUERY_FAULTS = ("Neo.ClientError.Statement.", "Neo.ClientError.Procedure.")


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
        access_write_seconds: float = 1.0,
    ) -> None:
        super().__init__(NEO4J)
        self._recall_reads |= {NAMED_ROWS.text, HOP_ROWS.text, READ_AHEAD.text}
        self._database = database
        self._retry = Retry(_RETRYABLE, attempts, max_wait)
        self._local = threading.local()
        self._access = AccessLog(flush_episodes=1)
        self._access_held = threading.Lock()  # guards the log
        self._access_writing = threading.RLock()  # held while marks are drained and written
        self._access_due = threading.Event()
        self._access_delay = access_write_seconds
        self._closed = threading.Event()
        try:
            # A statement naming a property no node has yet (`archived_at` on a new database)
            # draws an UNRECOGNIZED notification on every call: expected, so not asked for.
            # Performance, deprecation and the other classifications still reach the log.
            self._driver = neo4j.GraphDatabase.driver(
                uri,
                auth=(user, password),
                notifications_disabled_classifications=[
                    neo4j.NotificationDisabledClassification.UNRECOGNIZED
                ],
            )
        except (*_DRIVER_ERRORS, ValueError) as exc:
            raise StoreUnavailable(f"cannot reach Neo4j at {uri}: {exc}") from exc
        try:
            self._retry(self._driver.verify_connectivity, "Neo4j")
            apply_schema(self._execute)
        except (StoreUnavailable, *_DRIVER_ERRORS) as exc:
            self._driver.close()
            raise StoreUnavailable(
                f"cannot reach Neo4j at {uri}: {exc} (check that the server runs and listens "
                "there, and NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE)"
            ) from exc
        self._marker = threading.Thread(
            target=self._write_marks_when_due, name="hindsight-neo4j-access-marks", daemon=True
        )
        self._marker.start()

    # -- plumbing -------------------------------------------------------------------------
    def _session(self, mode: str = neo4j.WRITE_ACCESS) -> neo4j.Session:
        return self._driver.session(database=self._database, default_access_mode=mode)

    def _in_own_transaction(
        self, work: Callable[[neo4j.Transaction], _T], write: bool = True
    ) -> _T:
        """Run `work` in a new transaction, committed at the end and retried when transient."""
        mode = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS

        def attempt() -> _T:
            with self._session(mode) as session, session.begin_transaction() as tx:
                result = work(tx)
                tx.commit()
                return result

        try:
            return self._retry(attempt, "Neo4j")
        except _DRIVER_ERRORS as exc:
            raise StoreUnavailable(f"graph query failed: {exc}") from exc

    def _auto_commit_read(self, query: str, params: Mapping[str, Any]) -> list[list[Any]]:
        """One statement that changes nothing, as an auto-commit query in a READ session:
        one round trip (RUN and PULL pipelined), where an explicit transaction takes three
        (BEGIN, RUN+PULL, COMMIT). Still routed to a follower, and retried as a whole."""

        def attempt() -> list[list[Any]]:
            with self._session(neo4j.READ_ACCESS) as session:
                return _rows(session.run(query, dict(params)))

        try:
            return self._retry(attempt, "Neo4j")
        except _DRIVER_ERRORS as exc:
            raise StoreUnavailable(f"graph query failed: {exc}") from exc

    def _execute(
        self, query: str, params: Mapping[str, Any], *, write: bool = True
    ) -> list[list[Any]]:
        tx: neo4j.Transaction | None = getattr(self._local, "tx", None)
        if tx is None and query not in self._recall_reads:
            # Not inside a caller's transaction: its locks would make the marks' own wait.
            self._write_marks()
        if tx is None and not write:
            return self._auto_commit_read(query, params)
        if tx is None:
            return self._in_own_transaction(lambda own: _rows(own.run(query, dict(params))), write)
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
        session = self._session()
        try:
            tx = session.begin_transaction()
        except _DRIVER_ERRORS as exc:
            _quietly(session.close)
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
            if (exc.code or "").startswith(_QUERY_FAULTS):
                raise InvalidInput("query", f"the graph cannot run it: {exc.message}") from None
            raise StoreUnavailable(f"graph query failed: {exc}") from exc
        except _DRIVER_ERRORS as exc:
            raise StoreUnavailable(f"graph query failed: {exc}") from exc
        return CypherRows(columns=columns, rows=rows[:max_rows], truncated=len(rows) > max_rows)

    # -- recall's reads, one statement each ------------------------------------------------
    def named_rows(
        self, namespace: str, canonicals: Sequence[str], now: float, max_degree: int, limit: int
    ) -> NamedRows:
        if not canonicals:
            return NamedRows(entities=[], mentions=[], facts=[])
        params = {"ns": namespace, "names": list(canonicals), "now": now, "max_degree": max_degree, "limit": limit}
        return named_rows_from(self._run(NAMED_ROWS, params)[0])

    def hop_rows(
        self, namespace: str, frontier: Mapping[str, Sequence[str]], now: float, max_degree: int, limit: int
    ) -> HopRows:
        if not frontier:
            return HopRows(links=[], facts=[], mentions=[])
        params = {"ns": namespace, "frontier": frontier_rows(frontier), "now": now, "max_degree": max_degree,
                  "limit": limit}  # fmt: skip
        return hop_rows_from(self._run(HOP_ROWS, params)[0])

    def read_ahead(
        self, namespace: str, episode_ids: Sequence[str], next_of: Sequence[str], fact_ids: Sequence[str],
        digest_ids: Sequence[str], now: float,
    ) -> ReadAhead | None:  # fmt: skip
        ids, asking = list(dict.fromkeys(episode_ids)), list(dict.fromkeys(next_of))
        params = {"ns": namespace, "ids": ids, "next_of": asking, "now": now,
                  "fact_ids": list(dict.fromkeys(fact_ids)), "digest_ids": list(dict.fromkeys(digest_ids))}  # fmt: skip
        return read_ahead_from(self._run(READ_AHEAD, params)[0], ids, asking)

    # -- access marks --------------------------------------------------------------------
    def mark_accessed(self, namespace: str, ids: Sequence[str], at: float) -> None:
        with self._access_held:
            self._access.add(namespace, ids, at)
        self._access_due.set()

    def live_episodes(self, namespace: str, ids: Sequence[str], now: float) -> list[Episode]:
        episodes = super().live_episodes(namespace, ids, now)
        with self._access_held:
            return self._access.overlay(namespace, episodes)

    def _write_marks(self) -> None:
        """Write the held marks, if any, in their own transaction (never the caller's)."""
        with self._access_writing:
            with self._access_held:
                if not self._access:
                    return
                drained = self._access.drain()
            text = self._q.mark_accessed_rows.text

            def work(tx: neo4j.Transaction) -> None:
                for namespace, rows in drained.items():
                    tx.run(text, {"rows": rows, "ns": namespace}).consume()

            try:
                self._in_own_transaction(work)
            except StoreUnavailable:
                pass  # bookkeeping only: recall never waits on it

    def _write_marks_when_due(self) -> None:
        while not self._closed.is_set():
            self._access_due.wait()
            # The recalls of the next moments join this write: one transaction, not one each.
            self._closed.wait(self._access_delay)
            self._access_due.clear()
            if not self._closed.is_set():
                self._write_marks()

    def close(self) -> None:
        self._closed.set()
        self._access_due.set()
        self._marker.join(timeout=10)
        self._write_marks()
        self._driver.close()


def _rows(result: neo4j.Result) -> list[list[Any]]:
    """Records as lists, nodes and relationships as property dicts (as Ladybug returns them)."""
    return [[_properties(v) for v in record.values()] for record in result]


# Values that stay as they are, told by their exact type: a recall's rows hold thousands, and
# `isinstance` against the driver's Node and Relationship (abstract classes) cost ~2 ms a recall.
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _properties(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list:  # collected rows (`engine/stores/neo4j_recall.py`)
        return [v if type(v) in _PLAIN else _properties(v) for v in value]
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
