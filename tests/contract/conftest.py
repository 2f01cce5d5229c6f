"""Store fixtures parametrised over every backend of a role.

The embedded backends and qdrant-client's local mode run everywhere. Neo4j runs when
NEO4J_URI is set, a Qdrant server when QDRANT_URL is set; otherwise those cases are reported
as skipped with the reason. CI and `make test-neo4j` set HINDSIGHT_REQUIRE_LIVE=neo4j, which
turns a missing NEO4J_URI into a failure, and an unreachable server fails on its own.

The Neo4j cases empty hindsight's labels in the database they are given: point them at a
test database.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

import pytest

from engine.stores.base import GraphStore
from engine.stores.vectors import VectorStore
from tests.backends import live as _live
from tests.backends import wipe_neo4j as _wipe_neo4j

DIMENSION = 4
MULTILINGUAL = 3  # the multilingual space: another size, so that mixing them up fails


class OpenGraph(Protocol):
    def __call__(self, *, fresh: bool = False) -> GraphStore:
        """Open the backend's graph store: the same data again, or an empty graph if fresh."""
        ...


OpenVectors = Callable[[], VectorStore]


# "ladybug-statements" runs Ladybug without its MENTIONS index or episode cache and writes access marks at
# once: the statements Neo4j runs.
@pytest.fixture(
    params=["ladybug", "ladybug-statements", pytest.param("neo4j", marks=pytest.mark.neo4j)]
)
def open_graph(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenGraph]:
    """A function that opens the backend's graph store (again: the same data)."""
    opened: list[GraphStore] = []
    if request.param.startswith("ladybug"):
        from engine.stores.ladybug_graph import LadybugGraphStore

        def open_ladybug(*, fresh: bool = False) -> GraphStore:
            path = tmp_path / f"graph-{len(opened) if fresh else 0}"
            cached = request.param == "ladybug"
            opened.append(
                LadybugGraphStore(
                    path,
                    index_episodes=1000 if cached else 0,
                    access_batch=256 if cached else 1,
                    cache_episodes=1000 if cached else 0,
                )
            )
            return opened[-1]

        yield open_ladybug
    else:
        uri = _live("NEO4J_URI", "Neo4j server")
        from engine.stores.neo4j_graph import Neo4jGraphStore

        _wipe_neo4j(uri)

        def open_neo4j(*, fresh: bool = False) -> GraphStore:
            if fresh:
                _wipe_neo4j(uri)
            opened.append(
                Neo4jGraphStore(
                    uri,
                    user=os.environ.get("NEO4J_USER", "neo4j"),
                    password=os.environ.get("NEO4J_PASSWORD", ""),
                    database=os.environ.get("NEO4J_DATABASE", "neo4j"),
                    attempts=2,
                )
            )
            return opened[-1]

        yield open_neo4j
        _wipe_neo4j(uri)
    for store in opened:
        try:
            store.close()
        except Exception:  # closed by the test already
            pass


@pytest.fixture
def graph(open_graph: OpenGraph) -> GraphStore:
    return open_graph()


@pytest.fixture(
    params=["qdrant-edge", "qdrant-local", pytest.param("qdrant-server", marks=pytest.mark.qdrant),
            pytest.param("qdrant-server-rest", marks=pytest.mark.qdrant)]
)
def open_vectors(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenVectors]:
    """A function that opens the backend's vector store (again: the same data)."""
    opened: list[VectorStore] = []
    collection = f"contract-{uuid.uuid4().hex[:12]}"
    client_for: Callable[[], object]
    if request.param == "qdrant-edge":
        from engine.stores.qdrant_edge_vectors import QdrantEdgeVectorStore

        def open_edge() -> VectorStore:
            for store in opened:  # one process may hold the shard at a time
                store.close()
            opened.clear()
            opened.append(QdrantEdgeVectorStore(tmp_path / "vectors", DIMENSION, multilingual=MULTILINGUAL))
            return opened[-1]

        yield open_edge
    else:
        from qdrant_client import QdrantClient

        from engine.stores.qdrant_server_vectors import QdrantServerVectorStore

        if request.param == "qdrant-local":

            def client_for() -> QdrantClient:
                for store in opened:  # local mode locks its folder
                    store.close()
                opened.clear()
                return QdrantClient(path=str(tmp_path / "qdrant-local"))
        else:  # over gRPC, as hindsight talks to a server by default, or over REST
            url = _live("QDRANT_URL", "Qdrant server")
            grpc = request.param == "qdrant-server"
            grpc_port = int(os.environ.get("QDRANT_GRPC_PORT") or 6334)

            def client_for() -> QdrantClient:
                return QdrantClient(url=url, api_key=os.environ.get("QDRANT_API_KEY") or None,
                                    check_compatibility=False, prefer_grpc=grpc, grpc_port=grpc_port)  # fmt: skip

        def open_server() -> VectorStore:
            client = client_for()
            # Counts reused for a minute: every contract case also checks that a store's own
            # writes reach its keyword scores at once.
            opened.append(QdrantServerVectorStore(client, collection, DIMENSION,
                                                  multilingual=MULTILINGUAL, idf_seconds=60))  # fmt: skip
            return opened[-1]

        yield open_server
        if request.param.startswith("qdrant-server"):
            cleanup = client_for()
            cleanup.delete_collection(collection)
    for store in opened:
        try:
            store.close()
        except Exception:
            pass


@pytest.fixture
def vectors(open_vectors: OpenVectors) -> VectorStore:
    return open_vectors()
