"""The graph backends a suite runs on: the embedded default everywhere, Neo4j where NEO4J_URI
names a server (CI starts one: `tools/neo4j/neo4j.sh`).

`open_settings(backend, data_dir)` gives the Settings of a fresh memory on that backend; for
Neo4j it empties hindsight's labels in the database first, so point NEO4J_URI at a test server.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, NoReturn

import pytest

from engine import Settings
from graph_schema import NODES

__all__ = ["BACKENDS", "backend_env", "live", "open_settings", "unavailable", "wipe_neo4j"]

BACKENDS = ["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)]


def live(variable: str, what: str) -> str:
    """The server address, or skip; fail instead when HINDSIGHT_REQUIRE_LIVE names the
    server's kind (`neo4j`, `qdrant`, comma-separated; `1` means both)."""
    value = os.environ.get(variable)
    if value:
        return value
    reason = f"{variable} is not set: no {what} to run these cases against"
    if os.environ.get("HINDSIGHT_REQUIRE_LIVE", "") == "1":
        pytest.fail(reason)
    unavailable(reason, "neo4j" if variable.startswith("NEO4J") else "qdrant")


def unavailable(reason: str, kind: str) -> NoReturn:
    """Skip for a missing tool (`browser`: Chromium, node and its modules; `curl`), or fail
    when HINDSIGHT_REQUIRE_LIVE names that kind, as CI does."""
    if kind in {part.strip() for part in os.environ.get("HINDSIGHT_REQUIRE_LIVE", "").split(",")}:
        pytest.fail(reason)
    pytest.skip(reason)


_UNREACHABLE: dict[str, str] = {}  # uri -> why: fail every later case at once


def wipe_neo4j(uri: str) -> None:
    """Delete every node of hindsight's labels in the test database."""
    import neo4j

    if uri in _UNREACHABLE:
        pytest.fail(_UNREACHABLE[uri])
    auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""))
    with neo4j.GraphDatabase.driver(
        uri, auth=auth, connection_timeout=10, max_transaction_retry_time=10
    ) as driver:
        try:
            driver.verify_connectivity()
        except Exception as exc:
            _UNREACHABLE[uri] = f"Neo4j at {uri} is unreachable: {exc}"
            pytest.fail(_UNREACHABLE[uri])
        labels = " OR ".join(f"n:{label}" for label in [*(n.label for n in NODES), "SchemaVersion"])
        driver.execute_query(
            f"MATCH (n) WHERE {labels} DETACH DELETE n",
            database_=os.environ.get("NEO4J_DATABASE", "neo4j"),
        )


def _collection_prefix(data_dir: Path) -> str:
    """One Qdrant collection per data directory: a child process finds its parent's."""
    return "t" + hashlib.sha1(str(data_dir.resolve()).encode()).hexdigest()[:12]


def open_settings(backend: str, data_dir: Path, *, wipe: bool = True, **overrides: Any) -> Settings:
    """Settings of a memory on `backend` ("embedded" or "neo4j") under `data_dir`; on Neo4j
    the database is emptied first unless `wipe=False` (to reopen what a child wrote)."""
    if backend == "embedded":
        return Settings(data_dir=data_dir, **overrides)
    uri = live("NEO4J_URI", "Neo4j server")
    if wipe:
        wipe_neo4j(uri)
    # Vectors in qdrant-client's local mode under data_dir.
    return Settings(data_dir=data_dir, backend="neo4j",
                    qdrant_collection_prefix=_collection_prefix(data_dir), **overrides)  # fmt: skip


def backend_env(backend: str, data_dir: Path) -> dict[str, str]:
    """The environment a child process (CLI, MCP server) needs to open the same memory."""
    if backend == "embedded":
        return {}
    live("NEO4J_URI", "Neo4j server")
    return {"HINDSIGHT_BACKEND": "neo4j",
            "HINDSIGHT_QDRANT_COLLECTION_PREFIX": _collection_prefix(data_dir)}  # fmt: skip
