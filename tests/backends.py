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

__all__ = [
    "BACKENDS", "EMBEDDED_GRAPH_STORES", "STORES", "backend_env", "drop_collections", "live", "open_settings", "stores_settings",
    "unavailable", "wipe_neo4j",
]  # fmt: skip

BACKENDS = ["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)]
# Each graph backend with its vector store; the embedded graph also with qdrant-client's local
# mode, and with a Qdrant server (QDRANT_URL), which the production path runs on.
_QDRANT_SERVER = pytest.param("embedded+qdrant-server", marks=pytest.mark.qdrant)
STORES = [*BACKENDS, "embedded+qdrant-local", _QDRANT_SERVER]
# The same on the embedded graph alone: for the cases that need two empty memories at once.
EMBEDDED_GRAPH_STORES = ["embedded", "embedded+qdrant-local", _QDRANT_SERVER]


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


_PREFIXES: set[str] = set()  # the collection prefixes handed out, for drop_collections


def _collection_prefix(data_dir: Path) -> str:
    """One Qdrant collection per data directory: a child process finds its parent's."""
    prefix = "t" + hashlib.sha1(str(data_dir.resolve()).encode()).hexdigest()[:12]
    _PREFIXES.add(prefix)
    return prefix


def drop_collections(data_dir: Path | None = None) -> None:
    """Delete, on the Qdrant server at QDRANT_URL, the collections of `data_dir` (None: of every
    data directory handed out so far), so that a run leaves the server as it found it."""
    url = os.environ.get("QDRANT_URL")
    if not url:
        return
    from qdrant_client import QdrantClient

    prefixes = {_collection_prefix(data_dir)} if data_dir is not None else set(_PREFIXES)
    client = QdrantClient(url=url, api_key=os.environ.get("QDRANT_API_KEY") or None, check_compatibility=False)
    try:
        for collection in client.get_collections().collections:
            if collection.name.split("-", 1)[0] in prefixes:
                client.delete_collection(collection.name)
    finally:
        client.close()
    _PREFIXES.difference_update(prefixes)


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
                    **{"qdrant_collection_prefix": _collection_prefix(data_dir), **overrides})  # fmt: skip


def stores_settings(stores: str, data_dir: Path, **overrides: Any) -> Settings:
    """Settings of a fresh memory on one of `STORES` ("embedded", "neo4j",
    "embedded+qdrant-local", "embedded+qdrant-server") under `data_dir`."""
    backend, _, vectors = stores.partition("+")
    if vectors == "qdrant-local":
        overrides = {"vector_store": "qdrant", "qdrant_url": None, **overrides}
    elif vectors == "qdrant-server":
        overrides = {"vector_store": "qdrant", "qdrant_url": live("QDRANT_URL", "Qdrant server"),
                     "qdrant_collection_prefix": _collection_prefix(data_dir), **overrides}  # fmt: skip
    return open_settings(backend, data_dir, **overrides)


def backend_env(backend: str, data_dir: Path) -> dict[str, str]:
    """The environment a child process (CLI, MCP server) needs to open the same memory."""
    if backend == "embedded":
        return {}
    live("NEO4J_URI", "Neo4j server")
    return {"HINDSIGHT_BACKEND": "neo4j",
            "HINDSIGHT_QDRANT_COLLECTION_PREFIX": _collection_prefix(data_dir)}  # fmt: skip
