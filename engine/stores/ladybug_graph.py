"""The embedded graph store on Ladybug (an embedded Cypher database on disk).

The queries are `CypherGraphStore`'s, in the Ladybug dialect; this module holds the
connection, the DDL and the read-only analyst path. One connection, guarded by a re-entrant
lock: Ladybug allows one writer, and a transaction must not interleave with another
thread's reads on the same connection.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import ladybug

from engine.errors import StoreUnavailable, WriteFailed
from engine.stores.base import CypherRows
from engine.stores.cypher_dialect import LADYBUG
from engine.stores.cypher_graph import CypherGraphStore
from engine.stores.cypher_statements import Statement
from engine.stores.graph_rows import plain
from graph_schema import NODES, RELATIONSHIPS, SCHEMA_VERSION, ladybug_ddl, ladybug_migrations

__all__ = ["LadybugGraphStore"]


class LadybugGraphStore(CypherGraphStore):
    """`GraphStore` on an embedded Ladybug database at `path` (created when missing),
    executing each statement on `threads` worker threads (0: one per core)."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        super().__init__(LADYBUG)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = ladybug.Database(str(path), max_num_threads=threads)
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
    def _execute(self, query: str, params: Mapping[str, Any]) -> list[list[Any]]:
        with self._lock:
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
                self._rollback()
                raise
            self._in_transaction = False
            try:
                self._execute("COMMIT", {})
            except StoreUnavailable as exc:
                raise WriteFailed(f"graph commit failed: {exc}") from exc

    def _rollback(self) -> None:
        try:
            self._conn.execute("ROLLBACK")
        except RuntimeError:
            pass  # a failed statement already aborted the transaction

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

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._db.close()

